"""`tabletop check`: a table's bring-up, part by part, as a checklist of pass or fail.

One module per part, each a `check(context)` that adds its findings to the checklist:
`broker.py` (a login for each role the table file gives), `mat.py` (HELLO, layout, readers,
face sensors, touch pads, guidance LEDs), `leds.py` (the seat LEDs), `camera.py` (a frame,
exposure, focus, the empty tray, the calibration, one throw read) and `cards.py` (the card
map). `report.py` is the checklist, `person.py` the person at the terminal (or nobody), and
`cli.py` the command line that runs the parts in order.
"""
