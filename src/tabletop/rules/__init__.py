"""The rules side of the table, two ideas kept apart.

- `tabletop.rules.games`: the pure part, the game interface (`tabletop.rules.games.game`), the
registry and one
  package per game; no I/O, no clock, no global random state.
- `tabletop.rules.daemon`: the rules daemon, the only I/O here (MQTT, the game log in SQLite or
  PostgreSQL, leases, LED frames, threads) and the `tabletop rules`, `gm`, `replay` and
  `games` command lines.

The data flows `firmware -> hardware -> vision -> bridge -> wire -> tabletop.rules.daemon ->
tabletop.rules.games
-> console` (docs/architecture.md).
"""
