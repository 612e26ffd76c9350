"""The games, pure: the game interface, the registry and one package per game (`games`).

No I/O, no clock, no global random state: the rules daemon (`tabletop.daemon`) is the I/O of
the rules, beside this package, and imports it; nothing here imports the daemon. The data flows
`firmware -> hardware -> vision -> bridge -> wire -> tabletop.daemon -> tabletop.rules.games ->
console` (docs/architecture.md).
"""
