"""Beyond one box (issue 19): camera nodes that run perception and publish each finished clip, a memory hub that
writes them (one writer: association stays serialised), and a follower of an existing Frigate install, all over
an MQTT broker such as mosquitto. Nothing is lost on the way: a node keeps each clip in its outbox until the hub
says it stored it, and the hub's write is idempotent by (camera, clip start)."""
