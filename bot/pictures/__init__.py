"""Pictures the bot draws itself with Pillow: die faces and playing cards (uploaded as the
application's emojis) and the picture of a finished game's story."""
