"""The mat's circuit as code (docs/circuit.md): its wiring, parts, netlist, ERC, BOM, drawings.

`design` and `template` need nothing beyond the standard library; `mat`, `erc`, `bom` and
`build` need SKiDL (the project's `dev` extra): the circuit is a build and test artefact.
"""
