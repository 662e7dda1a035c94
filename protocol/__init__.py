"""Wire protocol: framing and message schemas shared by the server and the players."""
