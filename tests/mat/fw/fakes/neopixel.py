"""A stand-in for MicroPython's `neopixel` on the test bench."""


class NeoPixel:
    def __init__(self, pin, count):
        self.pixels = [(0, 0, 0)] * count
        self.writes = 0

    def __setitem__(self, index, colour):
        self.pixels[index] = colour

    def write(self):
        self.writes += 1
