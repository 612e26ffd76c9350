"""The plumbing every program of a table stands on: MQTT and what travels over it.

- `mqtt`: broker URLs and the MQTT link (paho-mqtt 2, VERSION2 callbacks) with its lifecycle;
- `topics`: the topic tree of a table (`tabletop/v1/<table>/...`);
- `payload`: reading untrusted payloads within limits, and encoding what is published;
- `resend`: how a client sends a command to the rules daemon (an id, resent until answered);
- `broker`: which broker a program uses, and the embedded one (`embedded`: amqtt with roles);
- `roles` and `passwords`: who may publish and read what, for both brokers;
- `throttled_log`: warnings about a flood, said once with a count.

Data flows mat and camera (`src/tabletop/hardware/`, `src/tabletop/vision/`) ->
`src/tabletop/bridge/` -> MQTT (here) -> the rules daemon (`src/tabletop/daemon/`) -> the
games (`src/tabletop/rules/<game>/`) -> LEDs and screens.
"""
