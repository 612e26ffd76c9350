"""Device drivers, each behind a small interface with a real and a simulated backend."""
