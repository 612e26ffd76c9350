"""MicroPython firmware for the sensor mat's RP2040 controller.

Every module here runs under MicroPython on the mat and under CPython in the simulated mat and
the tests: hardware is reached only through the small interfaces in `hal`, and `board` (the only
module that imports `machine`) is imported by `main` on the device alone.
"""
