"""Arena agents as engines for other programs, over standard input and output.

The reverse of `player.engines`: there the arena drives a program; here a
program (GoGui, Sabaki, gogui-twogtp, a CGOS client, another arena) drives one
of our agents. One module per protocol.
"""
