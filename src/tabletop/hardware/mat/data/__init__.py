"""Data files shipped with the mat driver (the simulated deck's tag map)."""
