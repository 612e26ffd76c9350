"""Device drivers, each behind a small interface with a real and a simulated backend.

Each device is chosen the same way: the table's file names it (`mat.port`, `camera.source`,
`leds.backend`: a URL or a backend's name, `sim` the simulated one), and its environment
variable, when set, stands in for the file's choice, so a Pi's file runs on a laptop
(`TABLETOP_MAT=sim: TABLETOP_CAMERA=sim TABLETOP_LEDS=sim`). Every program that opens a device
(`tabletop bridge`, `tabletop check`, the drivers' own factories) reads these names from here,
and says so in its log when a simulated device stands in.
"""

from typing import Final

MAT_ENV: Final = "TABLETOP_MAT"  # a mat port (/dev/tabletop-mat), or sim:
CAMERA_ENV: Final = "TABLETOP_CAMERA"  # a camera source (usb:0, picamera, a folder), or sim
LEDS_ENV: Final = "TABLETOP_LEDS"  # gpio, or sim
