/* One-hand win check and deficiency number in C: the same rules as analysis.is_winning and
 * deficiency.deficiency, for the calls a bot or the referee makes once per candidate hand.
 *
 * A Python call that turns 34 counts into table indices costs about a microsecond however it
 * is written; here it costs a tenth of that. The Python functions stay the reference and the
 * fallback: these answer None for anything they do not handle (not a list or tuple of 34 plain
 * ints in 0..4, a size that does not say the sets, tables not installed), and the caller then
 * takes the Python path, which answers or raises the precise error. So both paths give the same
 * answer or the same exception on every input; the tests compare them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NUM_KINDS 34
#define COPIES 4
#define MAX_SETS 5
#define SUIT_PATTERNS 1953125 /* 5**9 */
#define HONOUR_PATTERNS 78125 /* 5**7 */

/* ---- the win check (seed 001, theorems 1 and 2) ---------------------------------------- */

/* Theorem 1 as a transition table over ranks, built as analysis._theorem_one_steps builds it:
 * entry 5 * state + count is 5 * next_state; state 9 is dead; ending in state 0 means sets only. */
#define DEAD 9
static int steps[5 * (DEAD + 1)];

static void
build_steps(void)
{
    for (int i = 0; i < 5 * (DEAD + 1); i++) {
        steps[i] = 5 * DEAD;
    }
    for (int state = 0; state < DEAD; state++) {
        int prev = state / 3, prev2 = state % 3;
        for (int count = 0; count <= COPIES; count++) {
            int left = count - prev - prev2;
            if (left >= 0) {
                steps[5 * state + count] = 5 * (3 * (left % 3) + prev);
            }
        }
    }
}

static int
sets_only(const long *c)
{
    int s = 0;
    for (int i = 0; i < 9; i++) {
        s = steps[s + (int)c[i]];
    }
    return s == 0;
}

static int
sets_and_pair(long *c)
{
    long g0 = (c[0] + c[3] + c[6]) % 3;
    long g1 = (c[1] + c[4] + c[7]) % 3;
    int group = g0 == g1 ? 2 : (g0 == (c[2] + c[5] + c[8]) % 3 ? 1 : 0);
    for (int i = group; i < 9; i += 3) {
        if (c[i] >= 2) {
            c[i] -= 2;
            int ok = sets_only(c);
            c[i] += 2;
            if (ok) {
                return 1;
            }
        }
    }
    return 0;
}

/* Reads a list or tuple of 34 ints in 0..4 into out and returns the tile total; -1 when the
 * object is anything else (no exception is left set).
 *
 * Exact ints and bools only: an int subclass can override ==, + or % (which the Python
 * is_winning uses on the counts), so only the Python version can say what it answers. */
static long
read_counts(PyObject *obj, long *out)
{
    if (!(PyList_CheckExact(obj) || PyTuple_CheckExact(obj))) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(obj) != NUM_KINDS) {
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(obj);
    long total = 0;
    for (int i = 0; i < NUM_KINDS; i++) {
        PyObject *item = items[i];
        if (!PyLong_CheckExact(item) && !PyBool_Check(item)) {
            return -1;
        }
        int overflow = 0;
        long v = PyLong_AsLongAndOverflow(item, &overflow);
        if (overflow || v < 0 || v > COPIES) {
            PyErr_Clear();
            return -1;
        }
        out[i] = v;
        total += v;
    }
    return total;
}

static int
win_check(long *c)
{
    const long *h = c + 27;
    int pair_in = -1;
    for (int i = 0; i < 7; i++) {
        if (h[i] == 1 || h[i] == 4) {
            return 0;
        }
        if (h[i] == 2) {
            if (pair_in >= 0) {
                return 0;
            }
            pair_in = 3;
        }
    }
    long totals[3];
    for (int suit = 0; suit < 3; suit++) {
        long n = 0;
        for (int r = 0; r < 9; r++) {
            n += c[9 * suit + r];
        }
        totals[suit] = n;
        long rest = n % 3;
        if (rest) {
            if (rest == 1 || pair_in >= 0) {
                return 0;
            }
            pair_in = suit;
        }
    }
    if (pair_in < 0) {
        return 0;
    }
    for (int suit = 0; suit < 3; suit++) {
        if (suit != pair_in && totals[suit] && !sets_only(c + 9 * suit)) {
            return 0;
        }
    }
    return pair_in == 3 || sets_and_pair(c + 9 * pair_in);
}

/* METH_FASTCALL functions check their argument count themselves. */
static int
two_arguments(Py_ssize_t nargs, const char *signature)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s takes 2 arguments", signature);
        return 0;
    }
    return 1;
}

static PyObject *
speedups_is_winning(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    long c[NUM_KINDS];
    if (!two_arguments(nargs, "is_winning(counts, sets_needed)")) {
        return NULL;
    }
    long total = read_counts(args[0], c);
    if (total < 0) {
        Py_RETURN_NONE;
    }
    if (args[1] != Py_None) {
        /* Exact ints only: anything else (numpy ints, objects with __index__) compares by its
         * own arithmetic in the Python version, whose answer or error is then the one given. */
        if (!PyLong_CheckExact(args[1])) {
            Py_RETURN_NONE;
        }
        int overflow = 0;
        long sets = PyLong_AsLongAndOverflow(args[1], &overflow);
        /* A hand holds at most 136 tiles, so a huge or negative count matches no hand: False,
         * as the Python version answers whether the shape wins or not. */
        if (overflow || sets < 0 || sets > NUM_KINDS * COPIES || total != 3 * sets + 2) {
            Py_RETURN_FALSE;
        }
    }
    return PyBool_FromLong(win_check(c));
}

/* ---- the deficiency number (tables built by tables.build_tables) ---------------------- */

typedef struct {
    Py_buffer view;
    Py_ssize_t count;
    int held;
} Table;

static Table suit_class, honour_class, merge, final;
static long n_suit, n_honour;
static int installed;

static inline long
entry(const Table *t, Py_ssize_t i);

/* Entry i of a table whose contents choose i, checked: the buffers stay writable from Python,
 * so a table changed after `install` must give None (the Python lookup then raises), never a
 * read outside it. */
static inline int
checked(const Table *t, Py_ssize_t i, long *out)
{
    if (i < 0 || i >= t->count) {
        return 0;
    }
    *out = entry(t, i);
    return 1;
}

static inline long
entry(const Table *t, Py_ssize_t i)
{
    const char *base = (const char *)t->view.buf;
    switch (t->view.itemsize) {
        case 1:
            return ((const uint8_t *)base)[i];
        case 2:
            return ((const uint16_t *)base)[i];
        default:
            return ((const uint32_t *)base)[i];
    }
}

static void
release_tables(void)
{
    Table *all[] = {&suit_class, &honour_class, &merge, &final};
    for (int i = 0; i < 4; i++) {
        if (all[i]->held) {
            PyBuffer_Release(&all[i]->view);
            all[i]->held = 0;
        }
    }
    installed = 0;
}

static int
take_table(PyObject *obj, Table *t, Py_ssize_t need, const char *name)
{
    if (PyObject_GetBuffer(obj, &t->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        return -1;
    }
    t->held = 1;
    const char *f = t->view.format ? t->view.format : "B";
#if PY_LITTLE_ENDIAN
    if (*f == '=' || *f == '<' || *f == '@') {
#else
    if (*f == '=' || *f == '>' || *f == '!' || *f == '@') {
#endif
        f++;
    }
    Py_ssize_t size = t->view.itemsize;
    int unsigned_ok = (size == 1 && *f == 'B') || (size == 2 && *f == 'H') ||
                      (size == 4 && (*f == 'I' || *f == 'L'));
    if (!unsigned_ok || f[1] != '\0') {
        PyErr_Format(PyExc_ValueError, "%s: expected unsigned 8-, 16- or 32-bit entries, got '%s'",
                     name, t->view.format ? t->view.format : "B");
        return -1;
    }
    t->count = t->view.len / size;
    if (t->count < need) {
        PyErr_Format(PyExc_ValueError, "%s: expected at least %zd entries, got %zd", name, need,
                     t->view.len / size);
        return -1;
    }
    return 0;
}

/* Every entry of the first `count` below `bound`: the lookups index the next table with them,
 * and a corrupt table must not make them read outside it. */
static int
entries_below(const Table *t, Py_ssize_t count, long bound, const char *name)
{
    for (Py_ssize_t i = 0; i < count; i++) {
        if (entry(t, i) >= bound) {
            PyErr_Format(PyExc_ValueError, "%s[%zd] = %ld, expected below %ld", name, i,
                         entry(t, i), bound);
            return -1;
        }
    }
    return 0;
}

/* The table-size limit: far above the real tables (a few hundred classes), far below overflow. */
#define MOST_CLASSES 65536

static PyObject *
speedups_install(PyObject *module, PyObject *args)
{
    PyObject *sc, *hc, *mg, *fn;
    long ns, nh, merged;
    if (!PyArg_ParseTuple(args, "OOOOlll", &sc, &hc, &mg, &fn, &ns, &nh, &merged)) {
        return NULL;
    }
    if (ns <= 0 || nh <= 0 || merged <= 0 || ns > MOST_CLASSES || nh > MOST_CLASSES ||
        merged > MOST_CLASSES) {
        PyErr_Format(PyExc_ValueError, "class counts must lie in 1..%d", MOST_CLASSES);
        return NULL;
    }
    if (ns > merged) {
        /* The first merge lookup is indexed by a suit class as its row. */
        PyErr_SetString(PyExc_ValueError, "n_suit must not exceed n_merged");
        return NULL;
    }
    release_tables();
    Py_ssize_t merge_size = (Py_ssize_t)merged * ns;
    Py_ssize_t final_size = (Py_ssize_t)merged * nh * (MAX_SETS + 1);
    if (take_table(sc, &suit_class, SUIT_PATTERNS, "suit_class") < 0 ||
        take_table(hc, &honour_class, HONOUR_PATTERNS, "honour_class") < 0 ||
        take_table(mg, &merge, merge_size, "merge") < 0 ||
        take_table(fn, &final, final_size, "final") < 0 ||
        entries_below(&suit_class, SUIT_PATTERNS, ns, "suit_class") < 0 ||
        entries_below(&honour_class, HONOUR_PATTERNS, nh, "honour_class") < 0 ||
        entries_below(&merge, merge_size, merged, "merge") < 0) {
        release_tables();
        return NULL;
    }
    n_suit = ns;
    n_honour = nh;
    installed = 1;
    Py_RETURN_NONE;
}

static PyObject *
speedups_deficiency(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    long c[NUM_KINDS];
    if (!two_arguments(nargs, "deficiency(counts, sets)")) {
        return NULL;
    }
    if (!PyLong_CheckExact(args[1])) {
        Py_RETURN_NONE;
    }
    int overflow = 0;
    long sets = PyLong_AsLongAndOverflow(args[1], &overflow);
    if (overflow) {
        Py_RETURN_NONE;
    }
    long total = read_counts(args[0], c);
    if (total < 0) {
        Py_RETURN_NONE;
    }
    /* Checked after every conversion above, none of which runs Python code for exact ints and
     * lists of ints, so the tables cannot be replaced between this check and their use. */
    if (!installed) {
        Py_RETURN_NONE;
    }
    if (sets < -1) {
        Py_RETURN_NONE;
    }
    if (sets == -1) {
        /* From the size, as deficiency() does without melds: 3k+1 or 3k+2 tiles need k sets. */
        if (total % 3 == 0 || total > 3 * MAX_SETS + 2) {
            Py_RETURN_NONE;
        }
        sets = (total - 1) / 3;
    }
    if (sets > MAX_SETS) {
        Py_RETURN_NONE;
    }
    long code[4] = {0, 0, 0, 0};
    for (int part = 0; part < 4; part++) {
        int first = 9 * part, last = part == 3 ? NUM_KINDS : first + 9;
        long value = 0;
        for (int i = last - 1; i >= first; i--) {
            value = 5 * value + c[i];
        }
        code[part] = value;
    }
    /* The pattern codes are below 5**9 and 5**7, within the sizes checked at install. */
    Py_ssize_t man = entry(&suit_class, code[0]), pin = entry(&suit_class, code[1]);
    Py_ssize_t sou = entry(&suit_class, code[2]), honours = entry(&honour_class, code[3]);
    long two, three, answer;
    if (!checked(&merge, man * n_suit + pin, &two) ||
        !checked(&merge, (Py_ssize_t)two * n_suit + sou, &three) ||
        !checked(&final, ((Py_ssize_t)three * n_honour + honours) * (MAX_SETS + 1) + sets,
                 &answer)) {
        Py_RETURN_NONE;
    }
    return PyLong_FromLong(answer);
}

static PyMethodDef speedups_methods[] = {
    {"is_winning", (PyCFunction)(void (*)(void))speedups_is_winning, METH_FASTCALL,
     "is_winning(counts, sets_needed) -> True, False, or None when the Python path must answer."},
    {"deficiency", (PyCFunction)(void (*)(void))speedups_deficiency, METH_FASTCALL,
     "deficiency(counts, sets) -> the deficiency, or None when the Python path must answer; "
     "sets = -1 reads the sets off the size."},
    {"install", speedups_install, METH_VARARGS,
     "install(suit_class, honour_class, merge, final, n_suit, n_honour, n_merged): "
     "the deficiency tables, held until replaced."},
    {NULL, NULL, 0, NULL},
};

static void
speedups_free(void *module)
{
    release_tables();
}

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT, "_speedups", "C versions of the one-hand mahjong checks.", -1,
    speedups_methods, NULL, NULL, NULL, speedups_free,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    build_steps();
    return PyModule_Create(&speedups_module);
}
