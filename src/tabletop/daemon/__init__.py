"""The rules daemon: one table's game served over MQTT, with a durable log (docs/mqtt.md).

`service.RulesDaemon` is the daemon, `referee.Referee` its network-free core, `store.GameLog`
the SQLite log, `client.TableClient` what game master tools use to talk to it.
"""
