"""The k-in-a-row games' search knowledge (tic-tac-toe, gomoku): two kernels and gomoku's threat search.

`kernel` covers small boards (bit masks of windows), `big` the large ones;
for k >= 5 `threats` (threat scan, VCF, threat playouts), `vct` (victory by
continuous threats) and the root searches `rootthreats` and `rootvct`.
"""
