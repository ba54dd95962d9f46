"""The web pages served at /: TensorBoard's own UI (--ui tensorboard) or trainboard's index page."""
