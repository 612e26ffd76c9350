"""Six-Gun Showdown (seed 003): two gunslingers, six face-down bullets each, a race to draw."""
