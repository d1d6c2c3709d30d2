"""Terminal layer (layer 7): the only code that prints or reads the keyboard."""
