/*
 * An exact connect four solver (7 columns x 6 rows): the reference that scores
 * benchmarks/connect4_accuracy.py's positions. Independent of the player's
 * compiled search (player/mcts/fast/connect4_solve.py): another language,
 * another program, written from the published method (John Tromp's bitboard,
 * Pascal Pons's "Solving Connect 4" tutorial): negamax with alpha-beta, a
 * transposition table of bounds, center-first move ordering refined by the
 * number of threats a move creates, and never a move that lets the opponent win
 * at once.
 *
 * Protocol, one position per line on stdin: the moves from the empty board as
 * column digits 1..7 (an empty line is the empty board). Answer, one line per
 * position: for every column 1..7 the value of dropping a disc there for the
 * side to move, W (win), D (draw), L (loss) or - (column full), e.g.
 * "LDWDLL-". A game already over, or a malformed line, answers "?".
 * The table persists between lines (it keys exact positions).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 7
#define HEIGHT 6
#define H1 (HEIGHT + 1)
#define CELLS (WIDTH * HEIGHT)
#define TT_BITS 23

typedef uint64_t bb;

static const bb BOTTOM = 0x0000040810204081ULL; /* one bit per column floor */
static const bb BOARD = 0x0000FDFBF7EFDFBFULL;  /* the 42 playable cells */

typedef struct {
    bb me;   /* discs of the side to move */
    bb mask; /* every disc */
    int moves;
} Position;

static uint64_t *tt_key;
static int8_t *tt_low, *tt_up;
static uint64_t nodes;

static bb column_mask(int c) { return ((((bb)1) << HEIGHT) - 1) << (c * H1); }
static bb top_cell(int c) { return ((bb)1) << (HEIGHT - 1 + c * H1); }
static bb bottom_cell(int c) { return ((bb)1) << (c * H1); }

static int popcount(bb x) {
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}

/* empty cells that would complete four for the owner of p */
static bb winning_cells(bb p, bb mask) {
    bb r = (p << 1) & (p << 2) & (p << 3);
    const int shifts[3] = {H1, HEIGHT, HEIGHT + 2};
    for (int i = 0; i < 3; i++) {
        int s = shifts[i];
        bb q = (p << s) & (p << (2 * s));
        r |= q & (p << (3 * s));
        r |= q & (p >> s);
        q = (p >> s) & (p >> (2 * s));
        r |= q & (p << s);
        r |= q & (p >> (3 * s));
    }
    return r & (BOARD ^ mask);
}

static bb playable(const Position *p) { return (p->mask + BOTTOM) & BOARD; }

static int has_four(bb p) {
    const int shifts[4] = {1, H1, HEIGHT, HEIGHT + 2};
    for (int i = 0; i < 4; i++) {
        bb m = p & (p >> shifts[i]);
        if (m & (m >> (2 * shifts[i]))) return 1;
    }
    return 0;
}

static void play_bit(Position *p, bb bit) {
    p->me ^= p->mask; /* the other side's discs become "me" after the move */
    p->mask |= bit;
    p->moves++;
}

static int can_win_now(const Position *p) {
    return (winning_cells(p->me, p->mask) & playable(p)) != 0;
}

/* moves that do not hand the opponent an immediate win (0 if every move loses) */
static bb non_losing(const Position *p) {
    bb possible = playable(p);
    bb theirs = winning_cells(p->me ^ p->mask, p->mask);
    bb forced = possible & theirs;
    if (forced) {
        if (forced & (forced - 1)) return 0; /* two threats: lost */
        possible = forced;
    }
    return possible & ~(theirs >> 1);
}

static uint64_t key_of(const Position *p) { return p->me + p->mask; }

/* value for the side to move: 1 win, 0 draw, -1 loss; alpha/beta in that range */
static int negamax(Position *p, int alpha, int beta) {
    nodes++;
    bb next = non_losing(p);
    if (!next) return -1;
    if (p->moves >= CELLS - 2) return 0; /* the last two discs cannot win (checked above) */
    uint64_t key = key_of(p);
    size_t slot = (size_t)(key * 0x9E3779B97F4A7C15ULL >> (64 - TT_BITS));
    if (tt_key[slot] == key) {
        int lo = tt_low[slot], up = tt_up[slot];
        if (lo >= beta) return lo;
        if (up <= alpha) return up;
        if (lo > alpha) alpha = lo;
        if (up < beta) beta = up;
        if (alpha >= beta) return alpha;
    }
    int alpha0 = alpha;
    static const int order[WIDTH] = {3, 2, 4, 1, 5, 0, 6};
    bb cand[WIDTH];
    int score[WIDTH];
    int n = 0;
    for (int i = 0; i < WIDTH; i++) {
        bb bit = next & column_mask(order[i]);
        if (!bit) continue;
        int s = popcount(winning_cells(p->me | bit, p->mask | bit));
        int j = n++;
        while (j > 0 && score[j - 1] < s) { /* stable insertion: center first among equals */
            cand[j] = cand[j - 1];
            score[j] = score[j - 1];
            j--;
        }
        cand[j] = bit;
        score[j] = s;
    }
    int best = -1;
    for (int i = 0; i < n; i++) {
        Position child = *p;
        play_bit(&child, cand[i]);
        int v = -negamax(&child, -beta, -alpha);
        if (v > best) best = v;
        if (v > alpha) alpha = v;
        if (alpha >= beta) break;
    }
    int lo = -1, up = 1;
    if (tt_key[slot] == key) {
        lo = tt_low[slot];
        up = tt_up[slot];
    }
    if (best <= alpha0) {
        if (best < up) up = best;
    } else if (best >= beta) {
        if (best > lo) lo = best;
    } else {
        lo = up = best;
    }
    tt_key[slot] = key;
    tt_low[slot] = (int8_t)lo;
    tt_up[slot] = (int8_t)up;
    return best;
}

/* the value of the position after the side to move drops a disc in column c */
static char move_value(const Position *p, int c) {
    bb bit = playable(p) & column_mask(c);
    if (!bit) return '-';
    if (has_four(p->me | bit)) return 'W';
    Position child = *p;
    play_bit(&child, bit);
    if (child.moves == CELLS) return 'D';
    if (can_win_now(&child)) return 'L';
    int v = -negamax(&child, -1, 1);
    return v > 0 ? 'W' : v < 0 ? 'L' : 'D';
}

/* replay a line of column digits; 0 if it is malformed or the game ended on it */
static int setup(Position *p, const char *line) {
    memset(p, 0, sizeof *p);
    for (const char *s = line; *s && *s != '\n' && *s != '\r'; s++) {
        int c = *s - '1';
        if (c < 0 || c >= WIDTH || (p->mask & top_cell(c))) return 0;
        bb bit = (p->mask + bottom_cell(c)) & column_mask(c);
        if (has_four(p->me | bit)) return 0;
        play_bit(p, bit);
        if (p->moves == CELLS) return 0;
    }
    return 1;
}

int main(void) {
    size_t size = (size_t)1 << TT_BITS;
    tt_key = calloc(size, sizeof *tt_key);
    tt_low = calloc(size, 1);
    tt_up = calloc(size, 1);
    if (!tt_key || !tt_low || !tt_up) {
        fputs("out of memory\n", stderr);
        return 1;
    }
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        Position p;
        if (!setup(&p, line)) {
            puts("?");
        } else {
            char out[WIDTH + 1];
            for (int c = 0; c < WIDTH; c++) out[c] = move_value(&p, c);
            out[WIDTH] = 0;
            puts(out);
        }
        fflush(stdout);
    }
    return 0;
}
