"""The table's file, which every program of a table reads, and where each keeps its own files.

- `table`: `table.toml` (docs/README's "The table's file"): the game, seats, mat, camera, LEDs,
  broker and logins, read into a `TableConfig` with every wrong key named.
- `places`: where the game log, the corrections and the phones' joins lie unless the file or a
  flag says otherwise.

The bridge, the rules daemon and the console stand on it; it stands on the drivers' and the
games' names (floor 3 of docs/architecture.md).
"""
