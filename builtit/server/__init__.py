"""Everything Built-It changes in daphne and Twisted, installed by patches.install()."""
