"""Making the die classifier: harvesting crops from photos and renders, and the training run."""
