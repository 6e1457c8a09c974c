/* Dormand and Prince's explicit Runge-Kutta method of order 8 (Hairer, Norsett and Wanner,
   Solving ODEs I, sec. II.10), stepped in C around a generated kernel's eq. 101 (eom_driver.c).

   The steps are SciPy's DOP853 (scipy.integrate.DOP853) decision for decision: the same first
   step (Hairer's selection), the same error norm (the 5th- and 3rd-order estimates combined),
   the same step-size factors, so that a run through this loop is the run solve_ivp makes, only
   without Python between the stages.  The tableau (A, B, C, E3, E5, D) is written into
   dop853_tableau.h from SciPy's own coefficients when the library is built.

   y = [q; qd; w] and f = [qd; qdd; r] with qdd from the kernel's eom (Baumgarte alpha, beta)
   and, for a stroke (skilib.strokes.stroke), nw work rates r = W pw of the kernel's powers pw
   followed by the centre of mass's |v|, |vx|, |vy| (indices cm, cm + 1, cm + 2 of qd) and
   zeros up to the state's size; an actuator's positive and negative work rates max(r, 0), min(r, 0)
   of a work rate r (pairs: r's index among the rates, then the index in y of the positive part).  The kernel's context table holds its buffers: ctx[0] q,
   ctx[1] qd, ctx[13] the solution [qdd; lambda], ctx[14] the powers pw. */
#include <math.h>
#include <string.h>
#include "dop853_tableau.h"

typedef int (*eom_fn)(double t, double alpha, double beta, double **ctx);

#define GIMBAL 1000  /* a body's ZXZ angle theta reached its singularity (|sin theta| < tol) */
#define PULLING_LOAD 1001  /* a force on a constraint's load found the load negative (the contact would pull) */

typedef struct {
    eom_fn eom;
    double **ctx;
    int n;              /* coordinates */
    int m;              /* the state's size: 2n, and the stroke's extra states */
    const double *W;    /* nw x npw: the work rates' weights on the kernel's powers */
    int nw, npw, cm;    /* cm < 0: no integrals of the centre of mass's speed */
    double alpha, beta;
    long nfev;
    const int *theta;   /* indices in q of the ZXZ angles theta that must stay off 0 and pi */
    int n_theta;
    double gimbal_tol;
    double *y_fail;     /* the state of an evaluation that failed */
    const int *pairs;   /* n_pairs x (work rate index i, index jp in y of max(r_i, 0); jp + 1: min(r_i, 0)) */
    int n_pairs;
    const int *load_index;    /* the multipliers carrying a friction's load N = load_sign * lambda, */
    const double *load_sign;  /* which must not be negative (LoadFriction.check_load) */
    int n_loads;
} Problem;

/* g = event . y + (the body axis x of the angles at y[axis[0]..]) . y[axis[1] .. + 2]: a terminal
   event linear in y, or a body's speed along its own x axis (a ski whose line turns: axis[2] 1 for
   ZXZ angles, A = Rz(phi) Rx(theta) Rz(psi); 2 for Euler parameters, A = 2 [(p0^2 - 1/2) I + e e' + p0 e~]) */
static double event_value(const double *event, const int *axis, const double *y, int m)
{
    double g = 0.0;
    int i;
    if (event != NULL) for (i = 0; i < m; i++) g += event[i] * y[i];
    if (axis != NULL) {
        const double *a = y + axis[0], *v = y + axis[1];
        double e0, e1, e2;
        if (axis[2] == 1) {
            double cf = cos(a[0]), sf = sin(a[0]), ct = cos(a[1]), st = sin(a[1]), cp = cos(a[2]), sp = sin(a[2]);
            e0 = cf * cp - sf * ct * sp;
            e1 = sf * cp + cf * ct * sp;
            e2 = st * sp;
        } else {
            e0 = 2.0 * (a[0] * a[0] + a[1] * a[1]) - 1.0;
            e1 = 2.0 * (a[1] * a[2] + a[0] * a[3]);
            e2 = 2.0 * (a[1] * a[3] - a[0] * a[2]);
        }
        g += e0 * v[0] + e1 * v[1] + e2 * v[2];
    }
    return g;
}

static int rhs(Problem *P, double t, const double *y, double *f)
{
    const int n = P->n;
    int r;
    for (r = 0; r < P->n_theta; r++)
        if (fabs(sin(y[P->theta[r]])) < P->gimbal_tol) {
            memcpy(P->y_fail, y, P->m * sizeof(double));
            return GIMBAL;
        }
    memcpy(P->ctx[0], y, n * sizeof(double));
    memcpy(P->ctx[1], y + n, n * sizeof(double));
    P->nfev++;
    r = P->eom(t, P->alpha, P->beta, P->ctx);
    if (r) { memcpy(P->y_fail, y, P->m * sizeof(double)); return r; }
    for (r = 0; r < P->n_loads; r++)
        if (P->load_sign[r] * P->ctx[13][n + P->load_index[r]] < 0.0) {
            memcpy(P->y_fail, y, P->m * sizeof(double));
            return PULLING_LOAD;
        }
    memcpy(f, y + n, n * sizeof(double));
    memcpy(f + n, P->ctx[13], n * sizeof(double));
    if (P->m > 2 * n) {
        const double *pw = P->ctx[14], *v = y + n + P->cm;
        double *w = f + 2 * n;
        int i, j;
        for (i = 0; i < P->m - 2 * n; i++) w[i] = 0.0;
        for (i = 0; i < P->nw; i++) {
            double s = 0.0;
            for (j = 0; j < P->npw; j++) s += P->W[i * P->npw + j] * pw[j];
            w[i] = s;
        }
        if (P->cm >= 0) {
            w[P->nw] = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            w[P->nw + 1] = fabs(v[0]);
            w[P->nw + 2] = fabs(v[1]);
        }
        for (i = 0; i < P->n_pairs; i++) {
            double r = w[P->pairs[2 * i]];
            f[P->pairs[2 * i + 1]] = r > 0.0 ? r : 0.0;
            f[P->pairs[2 * i + 1] + 1] = r < 0.0 ? r : 0.0;
        }
    }
    return 0;
}

/* whether g -> g_new is a sign change in the direction dir (scipy.integrate._ivp.ivp.find_active_events) */
static int crossed(double g, double g_new, double dir)
{
    int up = g <= 0 && g_new >= 0, down = g >= 0 && g_new <= 0;
    return (up && dir > 0) || (down && dir < 0) || ((up || down) && dir == 0);
}

/* stages s = first .. last - 1 of a step of size h from (t, y): K[s] = f(t + C[s] h, y + h sum_j A[s][j] K[j]) */
static int stages(Problem *P, int first, int last, double t, double h, const double *y, double *K, double *ytmp,
                  double *t_fail)
{
    const int m = P->m;
    int s, i, j, r;
    for (s = first; s < last; s++) {
        for (i = 0; i < m; i++) {
            double d = 0.0;
            for (j = 0; j < s; j++) d += K[j * m + i] * A[s][j];
            ytmp[i] = y[i] + d * h;
        }
        if ((r = rhs(P, t + C[s] * h, ytmp, K + s * m))) { *t_fail = t + C[s] * h; return r; }
    }
    return 0;
}

static double rms(const double *x, const double *scale, int m)
{
    double s = 0.0;
    int i;
    for (i = 0; i < m; i++) { double v = x[i] / scale[i]; s += v * v; }
    return sqrt(s) / sqrt((double)m);
}

/* Integrate from t0 towards tf.  Accepted steps k = 1 .. *n_steps go to ts[k], ys[k * m ..]
   (ts[0], ys[0..] the start), and, if Fs is not NULL, the step's interpolant coefficients to
   Fs[(k - 1) * 7 * m ..] (SciPy's Dop853DenseOutput F): every step's with dense_all, else only those of
   the steps flagged below (the rest left as they are).  h_abs: the first step (<= 0: chosen
   as SciPy chooses it); on return the next step's size.  At most max_steps steps.
   n_checked: the error norm and the first step see y[0 .. n_checked - 1] only (the signed works
   after them are split by the caller: flags[k - 1] has bit p set when the stage rates of pair p
   changed sign in step k).
   event, axis (NULL: none; see event_value): a terminal event g in the direction event_dir (as solve_ivp's
   event.direction); event2 (NULL: none): a second one, g2 = event2 . y + event2_off, in event2_dir
   (a phase that may end early); *which: the events that changed sign in the last step (bits 1, 2); the step in which g changes sign that way is the last, its interpolant in
   F_event (the root is found by the caller, on it, as solve_ivp finds it).
   Returns 0 at tf, 1 when max_steps were taken before tf (call again from the last state),
   4 at the event's step,
   2 for a step below SciPy's smallest, 3 for max_eval evaluations used, GIMBAL, PULLING_LOAD, or the kernel's
   non-zero code (its solve failed), with *t_fail the time of that evaluation and its state in
   work[23 m ..].  work holds 24 m doubles. */
int dop853(eom_fn eom, double **ctx, int n, int m, const double *W, int nw, int npw, int cm, double alpha,
           double beta, double t0, double tf, const double *y0, double rtol, double atol, double max_step,
           double *h_abs_io, long max_steps, long max_eval, const int *theta, int n_theta, double gimbal_tol,
           const double *event, const int *axis, double event_dir, const double *event2, double event2_off,
           double event2_dir, int *which, double *F_event, double *ts, double *ys,
           double *Fs, int dense_all, int n_checked, const int *pairs, int n_pairs, int *flags, const int *load_index,
           const double *load_sign, int n_loads, long *n_steps, long *nfev, double *t_fail, double *work)
{
    Problem P = {eom, ctx, n, m, W, nw, npw, cm, alpha, beta, 0, theta, n_theta, gimbal_tol, work + 23 * m,
                 pairs, n_pairs, load_index, load_sign, n_loads};
    const int mc = n_checked;
    double *K = work;                          /* N_STAGES_EXTENDED x m */
    double *y = K + N_STAGES_EXTENDED * m, *y_new = y + m, *ytmp = y_new + m, *err5 = ytmp + m, *err3 = err5 + m;
    double *scale = err3 + m, *f = scale + m;
    double t = t0, h_abs = *h_abs_io, dir = tf > t0 ? 1.0 : -1.0;
    const double exponent = -1.0 / (ERROR_ESTIMATOR_ORDER + 1);
    long k = 0;
    int i, j, s, r;

    *n_steps = 0;
    memcpy(y, y0, m * sizeof(double));
    ts[0] = t;
    memcpy(ys, y, m * sizeof(double));
    if ((r = rhs(&P, t, y, f))) { *t_fail = t; *nfev = P.nfev; return r; }
    if (!(h_abs > 0.0)) {  /* Hairer's first step, as scipy.integrate._ivp.common.select_initial_step */
        double interval = fabs(tf - t0), d0, d1, d2, h0, h1;
        for (i = 0; i < mc; i++) scale[i] = atol + fabs(y[i]) * rtol;
        d0 = rms(y, scale, mc);
        d1 = rms(f, scale, mc);
        h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
        if (h0 > interval) h0 = interval;
        for (i = 0; i < m; i++) ytmp[i] = y[i] + h0 * dir * f[i];
        if ((r = rhs(&P, t + h0 * dir, ytmp, K))) { *t_fail = t + h0 * dir; *nfev = P.nfev; return r; }
        for (i = 0; i < mc; i++) err5[i] = K[i] - f[i];
        d2 = rms(err5, scale, mc) / h0;
        if (d1 <= 1e-15 && d2 <= 1e-15) h1 = fmax(1e-6, h0 * 1e-3);
        else h1 = pow(0.01 / fmax(d1, d2), 1.0 / (ERROR_ESTIMATOR_ORDER + 1));
        h_abs = fmin(fmin(100 * h0, h1), fmin(interval, max_step));
    }
    double g = event_value(event, axis, y, m), g2 = event2 != NULL ? event_value(event2, NULL, y, m) + event2_off : 0.0;
    *which = 0;
    while (dir * (tf - t) > 0) {
        double min_step = 10 * fabs(nextafter(t, dir * INFINITY) - t), h, t_new, error_norm;
        int accepted = 0, rejected = 0;
        if (k >= max_steps) { *h_abs_io = h_abs; *n_steps = k; *nfev = P.nfev; return 1; }
        if (h_abs > max_step) h_abs = max_step;
        else if (h_abs < min_step) h_abs = min_step;
        while (!accepted) {
            double e5 = 0.0, e3 = 0.0;
            if (h_abs < min_step) { *h_abs_io = h_abs; *n_steps = k; *nfev = P.nfev; *t_fail = t; return 2; }
            h = h_abs * dir;
            t_new = t + h;
            if (dir * (t_new - tf) > 0) t_new = tf;
            h = t_new - t;
            h_abs = fabs(h);
            memcpy(K, f, m * sizeof(double));
            if ((r = stages(&P, 1, N_STAGES, t, h, y, K, ytmp, t_fail))) { *nfev = P.nfev; return r; }  /* rk_step */
            for (i = 0; i < m; i++) {
                double d = 0.0;
                for (j = 0; j < N_STAGES; j++) d += K[j * m + i] * B[j];
                y_new[i] = y[i] + h * d;
            }
            if ((r = rhs(&P, t + h, y_new, K + N_STAGES * m))) { *t_fail = t + h; *nfev = P.nfev; return r; }
            for (i = 0; i < mc; i++) {
                double a5 = 0.0, a3 = 0.0;
                scale[i] = atol + fmax(fabs(y[i]), fabs(y_new[i])) * rtol;
                for (j = 0; j <= N_STAGES; j++) { a5 += K[j * m + i] * E5[j]; a3 += K[j * m + i] * E3[j]; }
                a5 /= scale[i];
                a3 /= scale[i];
                e5 += a5 * a5;
                e3 += a3 * a3;
            }
            if (e5 == 0.0 && e3 == 0.0) error_norm = 0.0;
            else error_norm = fabs(h) * e5 / sqrt((e5 + 0.01 * e3) * mc);
            if (error_norm < 1) {
                double factor = error_norm == 0.0 ? MAX_FACTOR : fmin(MAX_FACTOR, SAFETY * pow(error_norm, exponent));
                if (rejected) factor = fmin(1.0, factor);
                h_abs *= factor;
                accepted = 1;
            } else {
                h_abs *= fmax(MIN_FACTOR, SAFETY * pow(error_norm, exponent));
                rejected = 1;
            }
            if (P.nfev > max_eval) { *h_abs_io = h_abs; *n_steps = k; *nfev = P.nfev; *t_fail = t; return 3; }
        }
        int hit = 0;
        if (flags != NULL) {  /* which pairs' stage rates changed sign in this step */
            int p;
            flags[k] = 0;
            for (p = 0; p < n_pairs; p++) {
                const int jr = 2 * n + pairs[2 * p];
                double lo = K[jr], hi = K[jr];
                for (s = 1; s <= N_STAGES; s++) { lo = fmin(lo, K[s * m + jr]); hi = fmax(hi, K[s * m + jr]); }
                if (lo < 0.0 && hi > 0.0) flags[k] |= 1 << p;
            }
        }
        if (event != NULL || axis != NULL) {  /* solve_ivp's find_active_events */
            double g_new = event_value(event, axis, y_new, m);
            if (crossed(g, g_new, event_dir)) hit |= 1;
            g = g_new;
        }
        if (event2 != NULL) {
            double g_new = event_value(event2, NULL, y_new, m) + event2_off;
            if (crossed(g2, g_new, event2_dir)) hit |= 2;
            g2 = g_new;
        }
        *which = hit;
        /* the step's interpolant (_dense_output_impl): three more stages, for every step (dense_all), for
           a step whose signed works the caller splits (flags) and for the event's step; they change
           neither y nor the steps */
        const int keep = Fs != NULL && (dense_all || (flags != NULL && flags[k]));
        if (keep || hit) {
            double *F = keep ? Fs + k * INTERPOLATOR_POWER * m : F_event, *f_new = K + N_STAGES * m;
            if ((r = stages(&P, N_STAGES + 1, N_STAGES_EXTENDED, t, h, y, K, ytmp, t_fail))) { *nfev = P.nfev; return r; }
            for (i = 0; i < m; i++) {
                double dy = y_new[i] - y[i];
                F[i] = dy;
                F[m + i] = h * K[i] - dy;
                F[2 * m + i] = 2 * dy - h * (f_new[i] + K[i]);
            }
            for (s = 0; s < INTERPOLATOR_POWER - 3; s++)
                for (i = 0; i < m; i++) {
                    double d = 0.0;
                    for (j = 0; j < N_STAGES_EXTENDED; j++) d += D[s][j] * K[j * m + i];
                    F[(3 + s) * m + i] = h * d;
                }
        }
        if (hit && keep) memcpy(F_event, Fs + k * INTERPOLATOR_POWER * m, INTERPOLATOR_POWER * m * sizeof(double));
        memcpy(f, K + N_STAGES * m, m * sizeof(double));
        memcpy(y, y_new, m * sizeof(double));
        t = t_new;
        k++;
        ts[k] = t;
        memcpy(ys + k * m, y, m * sizeof(double));
        if (hit) { *h_abs_io = h_abs; *n_steps = k; *nfev = P.nfev; return 4; }
    }
    *h_abs_io = h_abs;
    *n_steps = k;
    *nfev = P.nfev;
    return 0;
}

/* eq. 101 at k points (a table's output grid): for each point j the kernel's eom_ctx on
   (t[j], q_j, qd_j) (q_j = Y[j * stride ...], qd_j after it), and its buffers copied out
   stacked: X (k x (n + nc)) = [qdd; lambda], M (k x n x n), C, Cvel (k x nc), Cq (k x nc x n),
   QF (k x nqf x n) and PW (k x npw).  The same call on the same numbers as one evaluation from
   Python, so the stacks are those evaluations' bit for bit.  Returns 0, or the kernel's code at
   the first point it fails at (*failed = that point; the caller evaluates it again to name the
   failure). */
int eval_points(eom_fn eom, double **ctx, int n, int nc, int nqf, int npw, int k, const double *t,
                const double *Y, int stride, double alpha, double beta, double *X, double *M, double *C,
                double *Cq, double *Cvel, double *QF, double *PW, int *failed)
{
    int j, status;
    for (j = 0; j < k; j++) {
        memcpy(ctx[0], Y + (size_t)j * stride, sizeof(double) * n);
        memcpy(ctx[1], Y + (size_t)j * stride + n, sizeof(double) * n);
        status = eom(t[j], alpha, beta, ctx);
        if (status) {
            *failed = j;
            return status;
        }
        memcpy(X + (size_t)j * (n + nc), ctx[13], sizeof(double) * (n + nc));
        memcpy(M + (size_t)j * n * n, ctx[5], sizeof(double) * n * n);
        memcpy(C + (size_t)j * nc, ctx[7], sizeof(double) * nc);
        memcpy(Cq + (size_t)j * nc * n, ctx[8], sizeof(double) * nc * n);
        memcpy(Cvel + (size_t)j * nc, ctx[9], sizeof(double) * nc);
        memcpy(QF + (size_t)j * nqf * n, ctx[11], sizeof(double) * nqf * n);
        memcpy(PW + (size_t)j * npw, ctx[14], sizeof(double) * npw);
    }
    return 0;
}
