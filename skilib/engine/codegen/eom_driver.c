/* The eq. 101 driver of the generated C kernels (skilib.engine.codegen.kernel appends it to
   the generated `generated` function; NQ, NC, NF and LOAD_ROW are defined before it).

   A row f of QF with LOAD_ROW[f] = k >= 0 is not a force but b, the generalized force per unit
   multiplier of a LoadFriction on row k (Q_f = b lambda_k): it moves to the left of eq. 101,
   column n + k of the matrix gains -b, and after the solve the row is scaled by lambda_k, so
   that QF holds every force's Q_f and pw[f] = Q_f.qd as for the others.

   It assembles eq. 101 and solves it by Gaussian elimination with partial pivoting, what
   LAPACK's dgesv does, unblocked: at 35 x 35 blocking buys nothing; it returns 0, k + 1 when
   column k has no non-zero pivot, or -1 for a non-finite result.

   The matrix is sparse (the skier's 35 x 35 has 156 non-zeros, 287 after the elimination), and
   a dense elimination spends most of its time looking at zeros.  `eom` (for NQ + NC <= 64) keeps
   a bit mask of the columns each row may hold a non-zero in (set where the assembly puts one,
   widened by each elimination step's fill-in) and visits only those: the pivot search, the
   rows to eliminate, the columns of an update and of the back substitution.  The operations it
   skips are x - l * 0 and x - 0 * y, which leave x as it is, and it does the others in the same
   order, so its result is `eom_dense`'s (every entry visited, the reference) bit for bit, up to
   the sign of a zero.  It also fills pw with the
   powers a work-energy bookkeeping needs: Q_f.qd of each traced force f, -lambda_r (Cq qd)_r of
   each row's constraint force (Qc = -Cq^T lambda, thesis section 3.5), and
   lambda_r (Cdot_r - (Cq qd)_r) = lambda_r Ct_r. */

/* eq. 101's matrix K and right-hand side x from the generated terms, and each row's bit mask
   of the columns where it holds a non-zero (a NaN counts as one; masks of 64 columns at most:
   `eom` reads them only where NQ + NC <= 64) */
static void assemble(double alpha, double beta, const double *Qx, const double *M, const double *Qv,
                     const double *C, const double *Cq, const double *Cvel, const double *Cquad,
                     const double *QF, double *K, double *x, unsigned long long *rows)
{
    const int n = NQ, m = NC, nf = NF, nn = NQ + NC;
    int i, j, f, r;
    for (i = 0; i < n; i++) {
        double s = Qv[i] + Qx[i];
        unsigned long long b = 0;
        for (j = 0; j < n; j++) {
            const double v = M[i * n + j];
            K[i * nn + j] = v;
            b |= (unsigned long long)(v != 0.0) << (j & 63);
        }
        rows[i] = b;
        for (f = 0; f < nf; f++) if (LOAD_ROW[f] < 0) s += QF[f * n + i];
        x[i] = s;
    }
    for (r = 0; r < m; r++) {
        unsigned long long b = 0;
        for (j = 0; j < n; j++) {
            const double v = Cq[r * n + j];
            K[(n + r) * nn + j] = v;
            K[j * nn + n + r] = v;
            b |= (unsigned long long)(v != 0.0) << (j & 63);
            rows[j] |= (unsigned long long)(v != 0.0) << ((n + r) & 63);
        }
        rows[n + r] = b;
        for (j = 0; j < m; j++) K[(n + r) * nn + n + j] = 0.0;
        x[n + r] = -Cquad[r] - 2.0 * alpha * Cvel[r] - beta * beta * C[r];
    }
    for (f = 0; f < nf; f++) {  /* Q_f = b lambda_k: the column of row k gains -b */
        if (LOAD_ROW[f] < 0) continue;
        for (i = 0; i < n; i++) {
            K[i * nn + n + LOAD_ROW[f]] -= QF[f * n + i];
            rows[i] |= (unsigned long long)(QF[f * n + i] != 0.0) << ((n + LOAD_ROW[f]) & 63);
        }
    }
}

/* after the solve: the load rows' Q_f = b lambda_k, and the powers pw */
static void powers(const double *qd, const double *Cq, const double *Cvel, double *QF, const double *x,
                   double *pw)
{
    const int n = NQ, m = NC, nf = NF;
    int j, f, r;
    for (f = 0; f < nf; f++) {
        double s = 0.0;
        if (LOAD_ROW[f] >= 0) {
            const double lam = x[n + LOAD_ROW[f]];
            for (j = 0; j < n; j++) QF[f * n + j] *= lam;
        }
        for (j = 0; j < n; j++) s += QF[f * n + j] * qd[j];
        pw[f] = s;
    }
    for (r = 0; r < m; r++) {
        double s = 0.0;
        for (j = 0; j < n; j++) s += Cq[r * n + j] * qd[j];
        pw[nf + r] = -x[n + r] * s;
        pw[nf + m + r] = x[n + r] * (Cvel[r] - s);
    }
}

/* the reference: every entry of K visited */
int eom_dense(double t, const double *q, const double *qd, const double *c, const double *p,
              double alpha, double beta, const double *Qx, double *M, double *Qv, double *C,
              double *Cq, double *Cvel, double *Cquad, double *QF, double *K, double *x, double *pw)
{
    const int nn = NQ + NC;
    int i, j, k;
    unsigned long long rows[NQ + NC];  /* not read here */
    generated(t, q, qd, c, p, M, Qv, C, Cq, Cvel, Cquad, QF);
    assemble(alpha, beta, Qx, M, Qv, C, Cq, Cvel, Cquad, QF, K, x, rows);
    for (k = 0; k < nn; k++) {
        int piv = k;
        double big = fabs(K[k * nn + k]);
        for (i = k + 1; i < nn; i++) {
            double a = fabs(K[i * nn + k]);
            if (a > big) { big = a; piv = i; }
        }
        if (!(big > 0.0)) return k + 1;
        if (piv != k) {
            for (j = k; j < nn; j++) {
                double tmp = K[k * nn + j]; K[k * nn + j] = K[piv * nn + j]; K[piv * nn + j] = tmp;
            }
            { double tmp = x[k]; x[k] = x[piv]; x[piv] = tmp; }
        }
        for (i = k + 1; i < nn; i++) {
            double l = K[i * nn + k] / K[k * nn + k];
            if (l != 0.0) {
                for (j = k + 1; j < nn; j++) K[i * nn + j] -= l * K[k * nn + j];
                x[i] -= l * x[k];
            }
        }
    }
    for (i = nn - 1; i >= 0; i--) {
        double s = x[i];
        for (j = i + 1; j < nn; j++) s -= K[i * nn + j] * x[j];
        x[i] = s / K[i * nn + i];
        if (!isfinite(x[i])) return -1;  /* overflow of a nearly singular matrix */
    }
    powers(qd, Cq, Cvel, QF, x, pw);
    return 0;
}

#if NQ + NC <= 64
#if defined(__GNUC__) || defined(__clang__)
#define CTZ(b) __builtin_ctzll(b)
#else
static int CTZ(unsigned long long b) { int i = 0; while (!(b & 1ULL)) { b >>= 1; i++; } return i; }
#endif
/* the columns beyond k of a row's mask */
#define BEYOND(mask, k) ((k) + 1 < 64 ? (mask) & ~((2ULL << (k)) - 1ULL) : 0ULL)

int eom(double t, const double *q, const double *qd, const double *c, const double *p,
        double alpha, double beta, const double *Qx, double *M, double *Qv, double *C,
        double *Cq, double *Cvel, double *Cquad, double *QF, double *K, double *x, double *pw)
{
    const int nn = NQ + NC;
    int i, j, k;
    unsigned long long rows[NQ + NC], b, u;
    generated(t, q, qd, c, p, M, Qv, C, Cq, Cvel, Cquad, QF);
    assemble(alpha, beta, Qx, M, Qv, C, Cq, Cvel, Cquad, QF, K, x, rows);
    for (k = 0; k < nn; k++) {
        int piv = k;
        double big = fabs(K[k * nn + k]);
        unsigned long long below = 0, upper;
        for (i = k + 1; i < nn; i++) below |= (rows[i] >> k & 1ULL) << i;  /* the rows to eliminate */
        for (b = below; b; b &= b - 1) {  /* in increasing i, as eom_dense: the same pivot */
            double a = fabs(K[CTZ(b) * nn + k]);
            if (a > big) { big = a; piv = CTZ(b); }
        }
        if (!(big > 0.0)) return k + 1;
        if (piv != k) {
            for (j = k; j < nn; j++) {
                double tmp = K[k * nn + j]; K[k * nn + j] = K[piv * nn + j]; K[piv * nn + j] = tmp;
            }
            { double tmp = x[k]; x[k] = x[piv]; x[piv] = tmp; }
            { unsigned long long tmp = rows[k]; rows[k] = rows[piv]; rows[piv] = tmp; }
            /* row piv now holds the old row k: its bit in column k is that row's */
            below = (below & ~(1ULL << piv)) | (rows[piv] >> k & 1ULL) << piv;
        }
        upper = BEYOND(rows[k], k);
        for (b = below; b; b &= b - 1) {
            double l;
            i = CTZ(b);
            l = K[i * nn + k] / K[k * nn + k];
            if (l != 0.0) {
                for (u = upper; u; u &= u - 1) {
                    j = CTZ(u);
                    K[i * nn + j] -= l * K[k * nn + j];
                }
                rows[i] |= upper;  /* the fill-in */
                x[i] -= l * x[k];
            }
        }
    }
    for (i = nn - 1; i >= 0; i--) {
        double s = x[i];
        for (u = BEYOND(rows[i], i); u; u &= u - 1) {  /* in increasing j, as eom_dense */
            j = CTZ(u);
            s -= K[i * nn + j] * x[j];
        }
        x[i] = s / K[i * nn + i];
        if (!isfinite(x[i])) return -1;  /* overflow of a nearly singular matrix */
    }
    powers(qd, Cq, Cvel, QF, x, pw);
    return 0;
}
#else
int eom(double t, const double *q, const double *qd, const double *c, const double *p,
        double alpha, double beta, const double *Qx, double *M, double *Qv, double *C,
        double *Cq, double *Cvel, double *Cquad, double *QF, double *K, double *x, double *pw)
{
    return eom_dense(t, q, qd, c, p, alpha, beta, Qx, M, Qv, C, Cq, Cvel, Cquad, QF, K, x, pw);
}
#endif

/* eom with its arrays in one table (q qd c p Qx M Qv C Cq Cvel Cquad QF K x pw): a call
   from Python then converts four arguments instead of nineteen */
int eom_ctx(double t, double alpha, double beta, double **a)
{
    return eom(t, a[0], a[1], a[2], a[3], alpha, beta, a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
               a[12], a[13], a[14]);
}

/* eom_dense with the same table: the reference a test sets eom beside */
int eom_dense_ctx(double t, double alpha, double beta, double **a)
{
    return eom_dense(t, a[0], a[1], a[2], a[3], alpha, beta, a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
                     a[12], a[13], a[14]);
}

void terms(double t, const double *q, const double *qd, const double *c, const double *p,
           double *M, double *Qv, double *C, double *Cq, double *Cvel, double *Cquad, double *QF)
{
    generated(t, q, qd, c, p, M, Qv, C, Cq, Cvel, Cquad, QF);
}
