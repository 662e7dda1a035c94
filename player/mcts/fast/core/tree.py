"""The compiled UCT search over an array tree (numba), generic over the kernels.

The tree is parallel arrays, one row per node, allocated in blocks: a node's
children are contiguous (``FIRST`` .. ``FIRST + NCH``) and always stored
after it, so a forward pass over the rows sees every parent before its
children (used by `compact`). Per node:

- ``st[i]``: the game state (int64 row, kernel layout), so selection never
  re-applies moves;
- ``ni[i]``: int32 columns FIRST, NCH (children, 0 = not expanded), VIS
  (visits), PARENT, MOVE, MOVER (seat that moved into the node), PROVEN
  (0, or `codes.PROVEN_WIN` / ``PROVEN_DRAW`` / ``PROVEN_LOSS`` for MOVER:
  MCTS-Solver), IMPLIED (with implicit minimax backups, `run`'s ``alpha``:
  the minimax of the evaluations below the node for MOVER, in [0, 1] times
  `IMPLIED_ONE`; `UNKNOWN` before the node is judged);
- ``wsum[i]``: the sum of rewards for MOVER (1 win, 1/2 draw, 0 loss).

Expansion: a leaf is expanded (all its children at once, in a random order)
on its second visit; the first visit only plays a rollout from it, so leaves
cost one row. A child that ends the game is proven at once. A kernel with a
leaf evaluator (`kernels.leaf`, asked when `run` is given its parameters)
may judge a leaf instead of the rollout: an exact result proves the leaf,
a reward in [0, 1] is backed up as a fraction (reversi: `reversi_leaf`). Selection takes
the first unvisited child, else the UCB1 maximum, skipping proven losses;
a proven draw counts its exact value without exploration bonus. With
``alpha`` > 0 a child's mean reward is ``(1 - alpha) * mean + alpha *
IMPLIED`` in the UCB1 sum (`_imply`).
`meta` holds ROOT, NEXT (first free row) and FULL (rows that could not be
expanded for lack of room: the tree stops growing, the search goes on).

RAVE (MC-RAVE, Gelly & Silver 2011; `run`'s ``rave`` > 0, kernels in
`kernels.AMAF`): each row also has an AMAF visit count ``avis`` and win sum
``awin`` (for MOVER), the simulations through its parent in which its move
was first played, after the parent, by its mover (in the tree below the
parent or in the rollout: `kernels.rollout_amaf` marks the rollout's
moves). Selection mixes them into a visited child's mean, ``(1 - beta) *
mean + beta * amaf`` with ``beta = sqrt(k / (3 * visits + k))`` (`k` is
``rave``, the visits at which both weigh the same), and an unvisited child
with AMAF statistics is worth its AMAF mean (beta = 1) plus the exploration
bonus of one visit, instead of being tried first. Without RAVE the two
arrays have no rows.

Priors (`run`'s ``prior``, kernels in `kernels.PRIORS`): at expansion the
kernel's `kernels.prior` gives each new child virtual visits and wins, added
to its VIS and ``wsum``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from player.mcts.fast.core import registry
from player.mcts.fast.core.atomics import add1, add2, cas1, cas2, fadd1, load2
from player.mcts.fast.core.codes import (
    DRAW,
    LEAF_EXACT,
    LEAF_REWARD,
    LEAF_ROLLOUT,
    ONGOING,
    PROVEN_DRAW,
    PROVEN_LOSS,
    PROVEN_WIN,
    UNSOLVED,
)
from player.mcts.fast.core.rng import below

#: the kernels' dispatch (`player.mcts.fast.kernels`), as the package above the core provides it:
#: a module global, so numba compiles the calls through it (and caches them)
kernels = registry.dispatch()

FIRST, NCH, VIS, PARENT, MOVE, MOVER, PROVEN, IMPLIED = range(8)
COLUMNS = 8
#: ``IMPLIED``'s fixed point: a value in [0, 1] times this; `UNKNOWN` when the node has none
IMPLIED_ONE = 1 << 30
UNKNOWN = -1
ROOT, NEXT, FULL = 0, 1, 2
#: a node's child count while one thread expands it (`_expand` with ``shared``)
CLAIMED = -1
#: what `_expand` answers instead of a child: no free rows for the children (the tree is full) ...
NO_ROOM = -1
#: ... or another thread is expanding the node (``shared``)
BUSY = -2


class Tree(NamedTuple):
    """The search tree as one value: its rows' states, int32 columns and reward sums, and `meta`.

    Row ``i`` is a node: ``st[i]`` its kernel state, ``ni[i]`` its columns
    (`FIRST` ... `IMPLIED`), ``wsum[i]`` the rewards backed up through it;
    ``meta`` holds `ROOT`, `NEXT` (the first free row) and `FULL`. The
    compiled functions (`run`, `init_root`, `compact`) take it as one
    argument: numba types a NamedTuple of arrays as a tuple of their types,
    caches functions over it, and reads a field as it reads a local array.
    """

    st: np.ndarray
    ni: np.ndarray
    wsum: np.ndarray
    meta: np.ndarray
    #: RAVE's AMAF visits (int32) and wins (float32: sums of halves, exact below 2**23) per
    #: row; no rows when the search keeps none (8 bytes a node otherwise)
    avis: np.ndarray
    awin: np.ndarray

    @classmethod
    def empty(cls, capacity: int, state_size: int, amaf: bool = False) -> Tree:
        """A tree of `capacity` rows, none used (`np.empty`: pages are mapped as it grows);
        `amaf`: with RAVE's AMAF statistics."""
        rows = capacity if amaf else 0
        return cls(
            np.empty((capacity, state_size), dtype=np.int64),
            np.empty((capacity, COLUMNS), dtype=np.int32),
            np.empty(capacity, dtype=np.float64),
            np.zeros(3, dtype=np.int64),
            np.empty(rows, dtype=np.int32),
            np.empty(rows, dtype=np.float32),
        )


class Leaf(NamedTuple):
    """`run`'s leaf evaluator: the kernel's parameters and a thread's working arrays.

    `params` (float64) are the evaluator's parameters; empty: no evaluator,
    every leaf plays a rollout. `counts` (int64) and `scratch` (int64 rows)
    are the thread's own (`kernels.leaf`: layouts the kernel owns). Two
    arrays, not views of one: a view per leaf costs reference counting,
    measurably.
    """

    params: np.ndarray
    counts: np.ndarray
    scratch: np.ndarray

    @classmethod
    def rollouts(cls) -> Leaf:
        """No evaluator: every leaf plays a rollout."""
        return cls(
            np.empty(0, dtype=np.float64),
            np.empty(0, dtype=np.int64),
            np.empty((0, 0), dtype=np.int64),
        )


class Prior(NamedTuple):
    """A thread's buffers for `kernels.prior` (virtual visits and wins of a new node's children).

    No rows (`Prior.none`): the search asks no prior.
    """

    visits: np.ndarray
    wins: np.ndarray

    @classmethod
    def none(cls) -> Prior:
        """No prior asked."""
        return cls(np.empty(0, dtype=np.int32), np.empty(0, dtype=np.float64))

    @classmethod
    def buffers(cls) -> Prior:
        """Room for the prior of any node's children."""
        return cls(np.zeros(MAX_MOVES, dtype=np.int32), np.zeros(MAX_MOVES, dtype=np.float64))


MAX_MOVES = 362  # the most legal moves of any kernel (go 19×19: 361 points and a pass)
MAX_DEPTH = 1024
# Hubs (``shared``). A hub is a node with at least `HUB_VISITS` visits: the top of
# the line that nearly every simulation goes down in a narrow tree (connect four),
# where threads that each add every visit at once fight over the node's cache
# line and over the lines of its siblings that every selection reads. A thread
# instead counts its simulations through the hub at each depth of its path in
# its own slot (`_count`) and adds a slot to the node when it holds `HUB_BUNCH`
# simulations, when the path goes through another hub at that depth, and at the
# end of `run` (`_flush`). A hub's counts then lag by at most a bunch per thread
# (3% of its visits at the threshold), and its virtual loss, worth less than
# 0.1% of its mean, is not counted.
#: the visits from which a node is a hub
HUB_VISITS = 1024
#: the most simulations a thread holds back from one hub
HUB_BUNCH = 32


@njit(cache=True, nogil=True)
def init_root(gid: int, cfg: np.ndarray, tree: Tree) -> None:
    """Make row 0 the root (its state must already be in ``tree.st[0]``)."""
    st, ni, wsum, meta, avis, awin = tree
    ni[0, :] = 0
    wsum[0] = 0.0  # the rows are `np.empty`: memory a freed array left, not zeros
    if avis.shape[0] > 0:
        avis[0] = 0
        awin[0] = 0.0
    ni[0, PARENT] = -1
    ni[0, MOVE] = -1
    ni[0, IMPLIED] = UNKNOWN
    ni[0, MOVER] = 1 - kernels.to_move(gid, cfg, st[0])
    meta[ROOT] = 0
    meta[NEXT] = 1
    meta[FULL] = 0


@njit(cache=True, nogil=True)
def _expand(
    gid: int,
    cfg: np.ndarray,
    tree: Tree,
    node: int,
    rng: np.ndarray,
    moves: np.ndarray,
    shared: bool,
    priors: Prior,
) -> int:
    """Create every child of `node`; return the first to visit, or `NO_ROOM` (the tree is
    full) or `BUSY` (another thread is expanding it).

    `shared` (threads searching one tree): the node is claimed first (its
    child count from 0 to `CLAIMED`), rows are taken by compare-and-swap on
    ``meta[NEXT]``, and the count is published last, so a thread that reads
    it sees the rows. `priors`: the thread's buffers for `kernels.prior`
    (no rows: no prior asked).
    """
    st, ni, wsum, meta, avis, awin = tree
    if shared and cas2(ni, node, NCH, 0, CLAIMED) != 0:
        return BUSY
    n = kernels.legal(gid, cfg, st[node], moves)
    while True:
        first = meta[NEXT]
        if first + n > st.shape[0]:
            meta[FULL] += 1
            if shared:
                cas2(ni, node, NCH, CLAIMED, 0)
            return NO_ROOM
        if not shared:
            meta[NEXT] = first + n
            break
        if cas1(meta, NEXT, first, first + n) == first:
            break
    if not kernels.ordered(gid, cfg):  # a kernel's best-first order is kept
        for i in range(n - 1, 0, -1):  # random order: "first unvisited" is then a random pick
            j = below(rng, i + 1)
            moves[i], moves[j] = moves[j], moves[i]
    chooser = kernels.to_move(gid, cfg, st[node])
    pvis, pwin = priors
    prior = pvis.shape[0] > 0
    if prior:
        pvis[:n] = 0
        pwin[:n] = 0.0
        kernels.prior(gid, cfg, st[node], moves, n, pvis, pwin)
    amaf = avis.shape[0] > 0
    pick = first
    for i in range(n):
        c = first + i
        kernels.play(gid, cfg, st[node], moves[i], st[c])
        ni[c, FIRST] = 0
        ni[c, NCH] = 0
        ni[c, VIS] = 0
        ni[c, PARENT] = node
        ni[c, MOVE] = moves[i]
        ni[c, MOVER] = chooser
        ni[c, PROVEN] = 0
        ni[c, IMPLIED] = UNKNOWN
        wsum[c] = 0.0
        if amaf:
            avis[c] = 0
            awin[c] = 0.0
        if prior and pvis[i] > 0:
            ni[c, VIS] = pvis[i]
            wsum[c] = min(max(pwin[i], 0.0), float(pvis[i]))
        s = kernels.status(gid, cfg, st[c])
        if s != ONGOING:
            ni[c, PROVEN] = (
                PROVEN_WIN if s == chooser else PROVEN_DRAW if s == DRAW else PROVEN_LOSS
            )
            if s == chooser:
                pick = c
    ni[node, FIRST] = first
    if shared:
        cas2(ni, node, NCH, CLAIMED, n)  # publish: the rows are written
    else:
        ni[node, NCH] = n
    return int(pick)


@njit(cache=True, nogil=True)
def _select(ni: np.ndarray, wsum: np.ndarray, node: int, c: float, alpha: float) -> int:
    first = ni[node, FIRST]
    scale = c * math.sqrt(math.log(ni[node, VIS] + 1))
    best = -1.0
    sel = -1
    for j in range(first, first + ni[node, NCH]):
        p = ni[j, PROVEN]
        if p == PROVEN_LOSS:
            continue
        v = ni[j, VIS]
        if v == 0 or p == PROVEN_WIN:
            return int(j)
        if p == PROVEN_DRAW:
            value = 0.5
        else:
            value = wsum[j] / v
            implied = ni[j, IMPLIED]
            if alpha > 0.0 and implied >= 0:
                value += alpha * (implied / IMPLIED_ONE - value)
            value += scale / math.sqrt(v)
        if value > best:
            best = value
            sel = j
    return first if sel < 0 else sel


@njit(cache=True, nogil=True)
def _select_rave(
    ni: np.ndarray,
    wsum: np.ndarray,
    avis: np.ndarray,
    awin: np.ndarray,
    node: int,
    c: float,
    alpha: float,
    k: float,
) -> int:
    """`_select` with RAVE: a child's mean is ``(1 - beta) * mean + beta * amaf``, ``beta =
    sqrt(k / (3 * visits + k))``; an unvisited child with AMAF visits is worth its AMAF mean
    and one visit's exploration bonus; one with neither is taken at once."""
    first = ni[node, FIRST]
    scale = c * math.sqrt(math.log(ni[node, VIS] + 1))
    best = -1.0
    sel = -1
    for j in range(first, first + ni[node, NCH]):
        p = ni[j, PROVEN]
        if p == PROVEN_LOSS:
            continue
        if p == PROVEN_WIN:
            return int(j)
        v = ni[j, VIS]
        a = avis[j]
        if p == PROVEN_DRAW:
            value = 0.5
        elif v == 0:
            if a == 0:
                return int(j)
            value = awin[j] / a + scale
        else:
            value = wsum[j] / v
            implied = ni[j, IMPLIED]
            if alpha > 0.0 and implied >= 0:
                value += alpha * (implied / IMPLIED_ONE - value)
            if a > 0:
                beta = math.sqrt(k / (3.0 * v + k))
                value += beta * (awin[j] / a - value)
            value += scale / math.sqrt(v)
        if value > best:
            best = value
            sel = j
    return first if sel < 0 else sel


@njit(cache=True, nogil=True)
def _amaf(
    ni: np.ndarray,
    avis: np.ndarray,
    awin: np.ndarray,
    path: np.ndarray,
    depth: int,
    seen: np.ndarray,
    winner: int,
    reward: float,
    side: int,
    shared: bool,
) -> None:
    """RAVE's backup: for each node of `path`, deepest first, count the simulation in the AMAF
    statistics of its children whose move their mover played first after the node.

    `seen` holds the rollout's first movers (seat + 1, `kernels.rollout_amaf`); going up,
    each tree move below the node is marked over them (it came earlier), so a node's
    children see the moves played after it, each by whoever played it first.
    """
    for k in range(depth, -1, -1):
        node = path[k]
        if k < depth:
            child = path[k + 1]
            m = ni[child, MOVE]
            if m >= 0:
                seen[m] = ni[child, MOVER] + 1
        nch = load2(ni, node, NCH) if shared else ni[node, NCH]
        if nch <= 0:
            continue
        first = ni[node, FIRST]
        for j in range(first, first + nch):
            m = ni[j, MOVE]
            mover = ni[j, MOVER]
            if m < 0 or seen[m] != mover + 1:
                continue
            if reward >= 0.0:
                gain = reward if mover == side else 1.0 - reward
            elif winner == DRAW:
                gain = 0.5
            else:
                gain = 1.0 if winner == mover else 0.0
            if shared:
                add1(avis, j, 1)
                fadd1(awin, j, gain)
            else:
                avis[j] += 1
                awin[j] += gain


@njit(cache=True, nogil=True)
def _prove(ni: np.ndarray, path: np.ndarray, depth: int) -> bool:
    """Push the proof of ``path[depth]`` up; True when the root is proven."""
    k = depth
    while k > 0:
        child = path[k]
        parent = path[k - 1]
        chooser = ni[child, MOVER]
        best = ni[child, PROVEN]
        if best != PROVEN_WIN:
            best = PROVEN_LOSS
            first = ni[parent, FIRST]
            for j in range(first, first + ni[parent, NCH]):
                p = ni[j, PROVEN]
                if p == 0:
                    return False
                if p == PROVEN_WIN or (p == PROVEN_DRAW and best == PROVEN_LOSS):
                    best = p
        if best == PROVEN_DRAW or ni[parent, MOVER] == chooser:
            ni[parent, PROVEN] = best
        else:
            ni[parent, PROVEN] = PROVEN_LOSS if best == PROVEN_WIN else PROVEN_WIN
        k -= 1
    return True


@njit(cache=True, nogil=True, inline="always")
def _descend(ni: np.ndarray, node: int) -> bool:
    """``shared``: count a simulation's visit to `node` as it descends (its virtual loss),
    unless the node is a hub; True for a hub (its visit is counted at the backup)."""
    if ni[node, VIS] >= HUB_VISITS:
        return True
    add2(ni, node, VIS, 1)
    return False


@njit(cache=True, nogil=True, inline="always")
def _count(
    ni: np.ndarray,
    wsum: np.ndarray,
    nodes: np.ndarray,
    visits: np.ndarray,
    wins: np.ndarray,
    node: int,
    k: int,
    gain: float,
) -> None:
    """Count one simulation through hub `node`, worth `gain`, in the thread's slot for depth `k`."""
    if nodes[k] != node:
        _add(ni, wsum, nodes, visits, wins, k)
        nodes[k] = node
    visits[k] += 1
    wins[k] += gain
    if visits[k] >= HUB_BUNCH:
        _add(ni, wsum, nodes, visits, wins, k)


@njit(cache=True, nogil=True, inline="always")
def _add(
    ni: np.ndarray,
    wsum: np.ndarray,
    nodes: np.ndarray,
    visits: np.ndarray,
    wins: np.ndarray,
    k: int,
) -> None:
    """Add slot `k`'s simulations to its hub (atomically) and empty it."""
    if visits[k] > 0:
        add2(ni, nodes[k], VIS, visits[k])
        fadd1(wsum, nodes[k], wins[k])
        visits[k] = 0
        wins[k] = 0.0


@njit(cache=True, nogil=True, inline="always")
def _flush(
    ni: np.ndarray, wsum: np.ndarray, nodes: np.ndarray, visits: np.ndarray, wins: np.ndarray
) -> None:
    """Add every slot's simulations to the tree (the end of a thread's `run`)."""
    for k in range(nodes.shape[0]):
        _add(ni, wsum, nodes, visits, wins, k)
        nodes[k] = -1


@njit(cache=True, nogil=True)
def proof(winner: int, mover: int) -> int:
    """The PROVEN mark, for `mover`, of a node whose game `winner` wins (a seat or DRAW)."""
    if winner == DRAW:
        return PROVEN_DRAW
    return PROVEN_WIN if winner == mover else PROVEN_LOSS


@njit(cache=True, nogil=True)
def run(
    gid: int,
    cfg: np.ndarray,
    tree: Tree,
    rng: np.ndarray,
    iterations: int,
    c: float,
    policy: int,
    solver: bool,
    leaf: Leaf,
    shared: bool,
    alpha: float,
    rave: float,
    priors: Prior,
) -> tuple[int, int]:
    """Run up to `iterations` simulations on `tree`; return (done, max depth).

    `leaf` is the kernel's leaf evaluator (`Leaf`); with no parameters
    (`Leaf.rollouts`) every leaf plays a rollout (policy `policy`). Else
    `kernels.leaf` judges each new leaf (working in the leaf's `counts` and
    `scratch`): a rollout, an exact winner (the leaf is proven, except the
    root) or a reward for the side to move, backed up as a fraction.
    `c` is UCB1's constant, `solver` MCTS-Solver's switch, `alpha` the
    implicit minimax backups' weight (0: off), `rave` RAVE's equivalence
    parameter (0: off; the tree must have AMAF rows), `priors` the buffers
    of the kernel's prior at expansion (`Prior.none`: none asked).

    `shared`: other threads run on the same tree at the same time (each with
    its own `rng`, `counts` and `scratch`). A simulation then counts its
    visit on each node as it descends (a virtual loss: the node looks worse
    to the other threads until the reward is backed up, so they spread
    out), adds rewards atomically, and expands a node only after claiming
    it (`_expand`); a node another thread is expanding is a leaf meanwhile.
    Through hubs (nodes of `HUB_VISITS` visits or more) a thread's visits
    and rewards are held back in its own slots and added in bunches
    (`_count`): no virtual loss there, and every slot is added before
    `run` returns.
    """
    st, ni, wsum, meta, avis, awin = tree
    params, counts, scratch = leaf
    root = meta[ROOT]
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    path = np.empty(MAX_DEPTH, dtype=np.int64)
    evaluator = params.shape[0] > 0
    amaf = rave > 0.0
    #: the moves' first movers in a simulation (seat + 1; RAVE)
    played = np.zeros(MAX_MOVES + 1 if amaf else 0, dtype=np.int8)
    seen = 1 if shared else 0  # a node's visits before this simulation's are more than this
    # ``shared``: whether the path's node at each depth is a hub, and the thread's
    # simulations through hubs not yet counted: a slot per depth, its hub, their
    # number and their rewards
    slots = MAX_DEPTH if shared else 0
    hub = np.zeros(slots, dtype=np.bool_)
    hnodes = np.full(slots, -1, dtype=np.int64)
    hvisits = np.zeros(slots, dtype=np.int32)
    hwins = np.zeros(slots)
    max_depth = 0
    done = 0
    while done < iterations and ni[root, PROVEN] == 0:
        done += 1
        node = root
        depth = 0
        path[0] = root
        if shared:
            hub[0] = _descend(ni, root)
        winner = ONGOING
        proven = False
        reward = -1.0  # an evaluated leaf's value for `side`; else `winner` counts
        estimate = -1.0  # the evaluation alone, for `side` (the implied minimax value)
        side = 0
        while True:
            p = ni[node, PROVEN]
            if p != 0:
                mover = ni[node, MOVER]
                winner = DRAW if p == PROVEN_DRAW else mover if p == PROVEN_WIN else 1 - mover
                proven = True
                break
            nch = load2(ni, node, NCH) if shared else ni[node, NCH]
            if nch <= 0:
                s = kernels.status(gid, cfg, st[node])
                if s != ONGOING:
                    winner = s
                    break
                if nch == 0 and (ni[node, VIS] > seen or node == root):
                    child = _expand(gid, cfg, tree, node, rng, moves, shared, priors)
                    if child >= 0 and depth + 1 < MAX_DEPTH:
                        node = child
                        depth += 1
                        path[depth] = node
                        if shared:
                            hub[depth] = _descend(ni, node)
                        if ni[node, PROVEN] != 0:
                            continue
                kind = LEAF_ROLLOUT
                exact = ONGOING
                value = -1.0
                if evaluator:
                    kind, exact, value, estimate = kernels.leaf(
                        gid, cfg, st[node], params, counts, scratch
                    )
                if kind == LEAF_EXACT:
                    winner = exact
                    estimate = -1.0  # the proof is the value
                    if depth > 0:
                        ni[node, PROVEN] = proof(winner, ni[node, MOVER])
                        proven = True
                elif kind == LEAF_REWARD:
                    reward = value
                    side = kernels.to_move(gid, cfg, st[node])
                elif amaf:
                    winner = kernels.rollout_amaf(gid, cfg, st[node], rng, policy, played)
                else:
                    winner = kernels.rollout(gid, cfg, st[node], rng, policy)
                break
            if amaf:
                node = _select_rave(ni, wsum, avis, awin, node, c, alpha, rave)
            else:
                node = _select(ni, wsum, node, c, alpha)
            depth += 1
            path[depth] = node
            if shared:
                hub[depth] = _descend(ni, node)
        if depth > max_depth:
            max_depth = depth
        for k in range(depth + 1):
            nd = path[k]
            if reward >= 0.0:
                gain = reward if ni[nd, MOVER] == side else 1.0 - reward
            elif winner == DRAW:
                gain = 0.5
            else:
                gain = 1.0 if winner == ni[nd, MOVER] else 0.0
            if shared and hub[k]:
                _count(ni, wsum, hnodes, hvisits, hwins, nd, k, gain)
            elif shared:
                fadd1(wsum, nd, gain)
            else:
                ni[nd, VIS] += 1
                wsum[nd] += gain
        if amaf:
            _amaf(ni, avis, awin, path, depth, played, winner, reward, side, shared)
            played[:] = 0
        if proven and solver and depth > 0 and _prove(ni, path, depth):
            break
        if alpha > 0.0:
            _imply(ni, path, depth, estimate, side)
    if shared:
        _flush(ni, wsum, hnodes, hvisits, hwins)
    return done, max_depth


@njit(cache=True, nogil=True)
def _known(ni: np.ndarray, j: int) -> int:
    """Node `j`'s implied value for its MOVER (fixed point), exact when it is proven."""
    p = ni[j, PROVEN]
    if p == PROVEN_WIN:
        return IMPLIED_ONE
    if p == PROVEN_DRAW:
        return IMPLIED_ONE // 2
    if p == PROVEN_LOSS:
        return 0
    return int(ni[j, IMPLIED])


@njit(cache=True, nogil=True)
def _imply(ni: np.ndarray, path: np.ndarray, depth: int, estimate: float, side: int) -> None:
    """Implicit minimax backups (Lanctot et al. 2014) after a simulation down `path`.

    The leaf keeps its evaluation (`estimate`, for `side`), and each node
    above it takes the best value of its children for the side choosing
    there, once every child has one (a child that wins, proven, at once):
    until then a node keeps its own evaluation. Up the path while values
    change (the path's proofs, `_prove`, are already marked).
    """
    leaf = path[depth]
    if estimate >= 0.0 and ni[leaf, PROVEN] == 0:
        mine = estimate if ni[leaf, MOVER] == side else 1.0 - estimate
        ni[leaf, IMPLIED] = int(mine * IMPLIED_ONE)
    for k in range(depth - 1, -1, -1):
        node = path[k]
        first = ni[node, FIRST]
        best = -1
        unknown = False
        for j in range(first, first + ni[node, NCH]):
            v = _known(ni, j)
            if v == IMPLIED_ONE:
                best = v
                break
            if v < 0:
                unknown = True
            elif v > best:
                best = v
        if best < 0 or (unknown and best < IMPLIED_ONE):
            return
        if ni[node, MOVER] != ni[first, MOVER]:
            best = IMPLIED_ONE - best
        if best == ni[node, IMPLIED]:
            return
        ni[node, IMPLIED] = best


@njit(cache=True, nogil=True)
def find_child(ni: np.ndarray, node: int, move: int) -> int:
    first = ni[node, FIRST]
    for j in range(first, first + ni[node, NCH]):
        if ni[j, MOVE] == move:
            return j
    return -1


@njit(cache=True, nogil=True)
def compact(tree: Tree) -> None:
    """Move the subtree of ROOT to the front rows (in place, order kept); ROOT becomes 0.

    Parents precede children, so one forward pass decides which rows live
    (the root and rows whose parent lives) and moves each live row down.
    """
    st, ni, wsum, meta, avis, awin = tree
    amaf = avis.shape[0] > 0
    root = meta[ROOT]
    end = meta[NEXT]
    new = np.full(end - root, -1, dtype=np.int64)
    count = 0
    for i in range(root, end):
        parent = ni[i, PARENT]
        if i == root or (parent >= root and new[parent - root] >= 0):
            new[i - root] = count
            if count != i:
                st[count, :] = st[i, :]
                ni[count, :] = ni[i, :]
                wsum[count] = wsum[i]
                if amaf:
                    avis[count] = avis[i]
                    awin[count] = awin[i]
            count += 1
    for j in range(count):
        ni[j, PARENT] = -1 if j == 0 else new[ni[j, PARENT] - root]
        if ni[j, NCH] > 0:
            ni[j, FIRST] = new[ni[j, FIRST] - root]
    meta[ROOT] = 0
    meta[NEXT] = count


# --- exact search at the root (kernels with a `kernels.solve`) ------------------


#: `solve_root`'s first allowance per child (nodes), doubled every round
FIRST_ALLOWANCE = 256
#: the last round's allowance per child: the rounds find the cheap proofs (a move that
#: loses at once, a quick win); past them the questions are asked of the root itself
LAST_ALLOWANCE = 2048
#: `solve_root`'s per-child state (`phase`): not tested yet, or known not to win (the
#: child's mover has at least a draw)
UNTESTED, NOT_WON = 0, 1
#: what `solve_root` knows of the root's value from the root's own questions
#: (``budget[6]``): nothing yet, won (find the winning move), at most a draw, a draw
#: (find a drawing move)
ROOT_UNKNOWN, ROOT_WON, ROOT_NOT_WON, ROOT_DRAW = 0, 1, 2, 3
#: the length of `solve_root`'s budget array
ROOT_BUDGET = 7


@njit(cache=True, nogil=True)
def _ask(
    gid: int,
    cfg: np.ndarray,
    st: np.ndarray,
    ni: np.ndarray,
    table: np.ndarray,
    budget: np.ndarray,
    phase: np.ndarray,
    c: int,
    k: int,
) -> int:
    """Ask child `c` (index `k`) its next question; 1 answered, 0 out of budget.

    An untested child is asked "does this move win?" (its mover's opponent
    lost: the window (-1, 0)); a child known not to win, "does it draw?"
    ((0, 1)). The answers are marked: PROVEN_WIN, NOT_WON, then PROVEN_DRAW or
    PROVEN_LOSS.
    """
    if phase[k] == UNTESTED:
        v = kernels.solve(gid, cfg, st[c], table, budget, -1, 0)
        if v == UNSOLVED:
            return 0
        if v < 0:  # its mover's opponent has lost: the move wins
            ni[c, PROVEN] = PROVEN_WIN
        else:
            phase[k] = NOT_WON
        return 1
    v = kernels.solve(gid, cfg, st[c], table, budget, 0, 1)
    if v == UNSOLVED:
        return 0
    ni[c, PROVEN] = PROVEN_LOSS if v > 0 else PROVEN_DRAW
    return 1


@njit(cache=True, nogil=True)
def _find(
    gid: int,
    cfg: np.ndarray,
    st: np.ndarray,
    ni: np.ndarray,
    table: np.ndarray,
    budget: np.ndarray,
    phase: np.ndarray,
    order: np.ndarray,
    first: int,
    total: int,
) -> bool:
    """Once the root is known won (``budget[6]``) or drawn, find a child that keeps it.

    The root's search left the answer in the table, so the children are
    asked in rounds from a tiny allowance (a table hit costs a node or two),
    doubled until one answers: the move the root's search found comes first,
    not the other moves' full searches. False when the budget ran out.
    """
    draw = budget[6] == ROOT_DRAW
    allowance = 64
    while True:
        pending = False
        for i in range(order.shape[0]):
            c = order[i]
            k = c - first
            if ni[c, PROVEN] != 0 or not (draw or phase[k] == UNTESTED):
                continue
            if budget[0] >= total:
                return False
            begin = budget[0]
            budget[1] = min(total, begin + allowance)
            answered = _ask(gid, cfg, st, ni, table, budget, phase, c, k)
            budget[1] = total
            p = ni[c, PROVEN]
            if p == PROVEN_WIN or (draw and p == PROVEN_DRAW):
                return True
            if answered == 0 or (ni[c, PROVEN] == 0 and (draw or phase[k] == UNTESTED)):
                pending = True
        if not pending:
            return True  # every move asked
        allowance *= 2


@njit(cache=True, nogil=True)
def mark_root(ni: np.ndarray, root: int, first: int, count: int, known: int) -> bool:
    """Mark the root once its value follows from its children's marks (and `known`)."""
    best = PROVEN_LOSS
    for c in range(first, first + count):
        p = ni[c, PROVEN]
        if p == PROVEN_WIN:
            best = PROVEN_WIN
            break
        if p == 0:
            best = 0
        elif p == PROVEN_DRAW and best == PROVEN_LOSS:
            best = PROVEN_DRAW
    if best == 0 and known == ROOT_DRAW:
        for c in range(first, first + count):
            if ni[c, PROVEN] == PROVEN_DRAW:
                best = PROVEN_DRAW  # no move wins (the root's answer), this one draws
    if best == 0:
        return False
    # the root's mark is for its own mover, the other seat
    ni[root, PROVEN] = (
        PROVEN_LOSS if best == PROVEN_WIN else PROVEN_WIN if best == PROVEN_LOSS else best
    )
    return True


@njit(cache=True, nogil=True)
def solve_root(
    gid: int,
    cfg: np.ndarray,
    st: np.ndarray,
    ni: np.ndarray,
    table: np.ndarray,
    budget: np.ndarray,
    phase: np.ndarray,
    root: int,
) -> bool:
    """Prove the expanded `root`'s value with the kernel's exact search, and the move that keeps it.

    Null-window questions (`kernels.solve`'s window) are cheaper than exact
    values. First, in rounds, each child is asked "does this move win?" and,
    if not, "does it draw?" (`_ask`) within a small allowance, doubled every
    round up to `LAST_ALLOWANCE`: the cheap proofs come first whatever the
    order, and the moves that lose at once are marked early for the Monte
    Carlo search. Then the root itself is asked, as alpha-beta would (one
    search, its move ordering and table shared by all the moves): "is it
    won?"; if so, which child wins (the table answers at once); if not, "is
    it lost?" (every move is then marked lost); if not, it is a draw, and the
    children are asked which draws. `phase` (one int8 per child) and
    ``budget[2:7]`` keep the progress between calls (zeros: start afresh),
    so a search cut into short calls goes on where it stopped; the table
    keeps the work of a call that ran out.

    ``budget[0]``/``budget[1]`` are the kernel's node count and limit. Every
    answer is marked in the tree (PROVEN for the child's mover); the root too
    once its value is known. The marks made before the budget runs out stay
    (MCTS then avoids the proven losses). True when the root is proven.
    """
    first, count = ni[root, FIRST], ni[root, NCH]
    if count > phase.shape[0]:
        return False
    order = np.empty(count, dtype=np.int64)
    for i in range(count):
        order[i] = first + i
    for i in range(1, count):  # insertion sort by visits, most first
        j = i
        while j > 0 and ni[order[j - 1], VIS] < ni[order[j], VIS]:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1
    # budget: 0 nodes so far, 1 node limit (both the kernel's), then the state kept
    # between calls: 2 each child's allowance this round, 3 the child in turn, 4 nodes it
    # has had, 5 children left unsolved this round, 6 what the root's questions found
    total = budget[1]
    if budget[2] == 0:
        budget[2] = FIRST_ALLOWANCE
    paused = False
    while budget[2] <= LAST_ALLOWANCE:  # the rounds
        while budget[3] < count:
            c = order[budget[3]]
            if ni[c, PROVEN] != 0:
                budget[3] += 1
                budget[4] = 0
                continue
            if budget[0] >= total:
                paused = True
                break
            begin = budget[0]
            budget[1] = min(total, begin + budget[2] - budget[4])
            answered = _ask(gid, cfg, st, ni, table, budget, phase, c, c - first)
            budget[4] += budget[0] - begin
            if answered == 0 and budget[4] < budget[2]:  # the call's limit: resume later
                paused = True
                break
            if ni[c, PROVEN] == PROVEN_WIN:
                paused = True  # the move is found
                break
            if answered == 0 or ni[c, PROVEN] == 0:  # out of allowance, or a question left
                budget[5] += 1
            budget[3] += 1
            budget[4] = 0
        if paused or budget[5] == 0:
            break
        budget[2] *= 2  # a new round, every unsolved child with twice the allowance
        budget[3] = 0
        budget[5] = 0
    budget[1] = total
    if not paused and budget[2] > LAST_ALLOWANCE:  # the root's questions
        while budget[0] < total:
            if mark_root(ni, root, first, count, budget[6]):
                return True
            may_win = False
            for k in range(count):
                if ni[first + k, PROVEN] == PROVEN_WIN:
                    budget[6] = ROOT_WON
                if ni[first + k, PROVEN] == 0 and phase[k] == UNTESTED:
                    may_win = True
            if budget[6] == ROOT_WON or budget[6] == ROOT_DRAW:  # find the move
                if not _find(gid, cfg, st, ni, table, budget, phase, order, first, total):
                    return False  # out of budget: on with it at the next call
                if not mark_root(ni, root, first, count, budget[6]):
                    break  # every move asked: the marks say all there is
            elif may_win and budget[6] == ROOT_UNKNOWN:
                v = kernels.solve(gid, cfg, st[root], table, budget, 0, 1)
                if v == UNSOLVED:
                    return False
                if v > 0:
                    budget[6] = ROOT_WON
                else:
                    budget[6] = ROOT_NOT_WON
                    for k in range(count):
                        if phase[k] == UNTESTED:
                            phase[k] = NOT_WON
            else:
                v = kernels.solve(gid, cfg, st[root], table, budget, -1, 0)
                if v == UNSOLVED:
                    return False
                if v >= 0:
                    budget[6] = ROOT_DRAW
                else:
                    for c in range(first, first + count):
                        ni[c, PROVEN] = PROVEN_LOSS  # every move loses
    return mark_root(ni, root, first, count, budget[6])
