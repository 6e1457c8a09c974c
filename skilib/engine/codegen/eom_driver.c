/* The eq. 101 driver of the generated C kernels (skilib.engine.codegen.kernel appends it to
   the generated `generated` function; NQ, NC, NF and LOAD_ROW are defined before it).

   A row f of QF with LOAD_ROW[f] = k >= 0 is not a force but b, the generalized force per unit
   multiplier of a LoadFriction on row k (Q_f = b lambda_k): it moves to the left of eq. 101,
   column n + k of the matrix gains -b, and after the solve the row is scaled by lambda_k, so
   that QF holds every force's Q_f and pw[f] = Q_f.qd as for the others.

   It assembles eq. 101 and solves it by Gaussian elimination with partial pivoting, what
   LAPACK's dgesv does, unblocked: at 35 x 35 blocking buys nothing; it returns 0, k + 1 when
   column k has no non-zero pivot, or -1 for a non-finite result.  It also fills pw with the
   powers a work-energy bookkeeping needs: Q_f.qd of each traced force f, -lambda_r (Cq qd)_r of
   each row's constraint force (Qc = -Cq^T lambda, thesis section 3.5), and
   lambda_r (Cdot_r - (Cq qd)_r) = lambda_r Ct_r. */

int eom(double t, const double *q, const double *qd, const double *c, const double *p,
        double alpha, double beta, const double *Qx, double *M, double *Qv, double *C,
        double *Cq, double *Cvel, double *Cquad, double *QF, double *K, double *x, double *pw)
{
    const int n = NQ, m = NC, nf = NF, nn = NQ + NC;
    int i, j, k, f, r;
    generated(t, q, qd, c, p, M, Qv, C, Cq, Cvel, Cquad, QF);
    for (i = 0; i < n; i++) {
        double s = Qv[i] + Qx[i];
        for (j = 0; j < n; j++) K[i * nn + j] = M[i * n + j];
        for (f = 0; f < nf; f++) if (LOAD_ROW[f] < 0) s += QF[f * n + i];
        x[i] = s;
    }
    for (r = 0; r < m; r++) {
        for (j = 0; j < n; j++) {
            K[(n + r) * nn + j] = Cq[r * n + j];
            K[j * nn + n + r] = Cq[r * n + j];
        }
        for (j = 0; j < m; j++) K[(n + r) * nn + n + j] = 0.0;
        x[n + r] = -Cquad[r] - 2.0 * alpha * Cvel[r] - beta * beta * C[r];
    }
    for (f = 0; f < nf; f++) {  /* Q_f = b lambda_k: the column of row k gains -b */
        if (LOAD_ROW[f] < 0) continue;
        for (i = 0; i < n; i++) K[i * nn + n + LOAD_ROW[f]] -= QF[f * n + i];
    }
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
    return 0;
}

/* eom with its arrays in one table (q qd c p Qx M Qv C Cq Cvel Cquad QF K x pw): a call
   from Python then converts four arguments instead of nineteen */
int eom_ctx(double t, double alpha, double beta, double **a)
{
    return eom(t, a[0], a[1], a[2], a[3], alpha, beta, a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
               a[12], a[13], a[14]);
}

void terms(double t, const double *q, const double *qd, const double *c, const double *p,
           double *M, double *Qv, double *C, double *Cq, double *Cvel, double *Cquad, double *QF)
{
    generated(t, q, qd, c, p, M, Qv, C, Cq, Cvel, Cquad, QF);
}
