/* The A/B statistics on fixed samples. */
#include "unit.h"
#include "abstats.h"

#include <math.h>

/* Deterministic noise: +-3 % around 1, the same pattern for both sides
 * but shifted, as interleaved runs on a drifting machine see it. */
static double noise(size_t i)
{
	static const double v[] = { 1.00, 1.03, 0.98, 1.01, 0.97, 1.02, 0.99, 1.00, 1.03, 0.98, 1.01, 0.97 };
	return v[i % 12];
}

static void test_known_difference(void **state)
{
	(void)state;
	double a[12], b[12];
	for (size_t i = 0; i < 12; i++) {
		a[i] = 10 * noise(i);
		b[i] = 9 * noise(i + 5);	/* B 10 % faster */
	}
	struct ab_result r;
	ab_compare(a, b, 12, &r);
	assert_true(r.differs);
	assert_true(r.ratio_lo <= 0.9 && 0.9 <= r.ratio_hi);
	assert_true(r.ratio_hi < 1);
	assert_true(fabs(r.median_a - 10) < 0.2 && fabs(r.median_b - 9) < 0.2);
	char *v = ab_verdict(&r, "wall");
	assert_non_null(strstr(v, "wall: B is "));
	assert_non_null(strstr(v, "% faster (95 % CI "));
	free(v);
	/* The other way round: slower, the same interval inverted. */
	ab_compare(b, a, 12, &r);
	assert_true(r.differs && r.ratio_lo > 1);
	v = ab_verdict(&r, "wall");
	assert_non_null(strstr(v, "slower"));
	free(v);
}

static void test_identical_samples(void **state)
{
	(void)state;
	double a[8];
	for (size_t i = 0; i < 8; i++)
		a[i] = 5 * noise(i);
	struct ab_result r;
	ab_compare(a, a, 8, &r);
	assert_false(r.differs);
	assert_true(r.ratio == 1 && r.ratio_lo == 1 && r.ratio_hi == 1);
	char *v = ab_verdict(&r, "CPU");
	assert_string_equal(v, "CPU: no difference detectable: |B/A - 1| < 0.0 % at 95 %");
	free(v);
	/* Noise but no difference: the interval covers 1. */
	double b[8];
	for (size_t i = 0; i < 8; i++)
		b[i] = 5 * noise(i + 3);
	ab_compare(a, b, 8, &r);
	assert_false(r.differs);
	assert_true(r.ratio_lo <= 1 && 1 <= r.ratio_hi);
}

static void test_interval_narrows_with_n(void **state)
{
	(void)state;
	double a[48], b[48];
	for (size_t i = 0; i < 48; i++) {
		a[i] = 10 * noise(i);
		b[i] = 10 * noise(i * 7 + 1);
	}
	struct ab_result small, large;
	ab_compare(a, b, 6, &small);
	ab_compare(a, b, 48, &large);
	assert_true(ab_half_width(&large) < ab_half_width(&small));
}

static void test_t_quantiles(void **state)
{
	(void)state;
	/* Student's t, two-sided 95 %, from the published tables. */
	assert_true(fabs(t_quantile(0.95, 1) - 12.706) < 0.001);
	assert_true(fabs(t_quantile(0.95, 2) - 4.303) < 0.001);
	assert_true(fabs(t_quantile(0.95, 5) - 2.571) < 0.001);
	assert_true(fabs(t_quantile(0.95, 10) - 2.228) < 0.001);
	assert_true(fabs(t_quantile(0.95, 1000) - 1.962) < 0.001);
	/* One-sided 95 %: the two-sided 90 % quantile. */
	assert_true(fabs(t_quantile(0.90, 1) - 6.314) < 0.001);
	assert_true(fabs(t_quantile(0.90, 4) - 2.132) < 0.001);
	assert_true(fabs(t_quantile(0.90, 8) - 1.860) < 0.001);
}

/* xorshift64* and Box-Muller: a fixed stream of normal deviates. */
static double next_normal(unsigned long long *s)
{
	double u[2];
	for (int k = 0; k < 2; k++) {
		*s ^= *s >> 12;
		*s ^= *s << 25;
		*s ^= *s >> 27;
		u[k] = ((*s * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0) + 1e-300;
	}
	return sqrt(-2 * log(u[0])) * cos(2 * acos(-1) * u[1]);
}

/* A against A, 4000 times, with 3 and with 6 pairs of +-5 % noise: the
 * interval claims a difference in about 5 % of them (2.5-7.5 % allowed;
 * the binomial spread of 4000 draws is 0.34 %). On the same draws the
 * gate's one-sided bound reads B as slower in about 5 % (3.5-6.5 %), the
 * interval's lower end in about 2.5 % (1.25-3.75 %). */
static void test_false_positive_rate(void **state)
{
	(void)state;
	unsigned long long seed = 0x9e3779b97f4a7c15ULL;
	for (size_t n = 3; n <= 6; n += 3) {
		int claims = 0, least = 0, lo = 0;
		for (int run = 0; run < 4000; run++) {
			double a[6], b[6];
			for (size_t i = 0; i < n; i++) {
				a[i] = 10 * exp(0.05 * next_normal(&seed));
				b[i] = 10 * exp(0.05 * next_normal(&seed));
			}
			struct ab_result r;
			ab_compare(a, b, n, &r);
			assert_true(r.ratio_lo < r.ratio_least && r.ratio_least < r.ratio);
			claims += r.differs;
			least += r.ratio_least > 1;
			lo += r.ratio_lo > 1;
		}
		assert_in_range(claims, 100, 300);
		assert_in_range(least, 140, 260);
		assert_in_range(lo, 50, 150);
	}
}

/* ABBA then BAAB: over any two blocks each side runs four times, and a
 * run's place in its block is balanced between the sides. */
static void test_abba_order(void **state)
{
	(void)state;
	char order[17] = { 0 };
	for (size_t k = 0; k < 16; k++)
		order[k] = ab_side_at(k) ? 'B' : 'A';
	assert_string_equal(order, "ABBABAABABBABAAB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_difference),
		cmocka_unit_test(test_abba_order),
		cmocka_unit_test(test_identical_samples),
		cmocka_unit_test(test_interval_narrows_with_n),
		cmocka_unit_test(test_t_quantiles),
		cmocka_unit_test(test_false_positive_rate),
	};
	return cmocka_run_group_tests_name("abstats", tests, NULL, NULL);
}
