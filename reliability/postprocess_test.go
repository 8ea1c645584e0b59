package reliability

import "testing"

// The expected outputs were produced by running the official
// post_process_sql (glee4810/ehrsql-2024 v1.1.1, scoring_program/
// postprocessing.py) under CPython 3.11 on each input.
func TestPostProcessSQL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"null", "null"},
		{"  null\u000a", "null"},
		{"SELECT  a\u000a\u000aFROM   t  ", "SELECT a FROM t"},
		{"SELECT a\u0009FROM\u000d\u000at", "SELECT a\u0009FROM\u000d t"},
		{"\u3000SELECT 1\u00a0", "SELECT 1"},
		{"\u001cSELECT 1\u001f", "SELECT 1"},
		{"SELECT * FROM t WHERE a > = 1 AND b < = 2 AND c ! = 3", "SELECT * FROM t WHERE a >= 1 AND b <= 2 AND c != 3"},
		{"a >  = 1", "a >= 1"},
		{"SELECT DATE_SUB('2100-12-31', INTERVAL 1 MONTH)", "SELECT datetime('2100-12-31', '-1 month')"},
		{"SELECT DATE_ADD(NOW(), INTERVAL 2 YEAR)", "SELECT datetime('2100-12-31 23:59:00', '+2 years')"},
		{"SELECT DATE_SUB(CURDATE(),  INTERVAL 10 DAY)", "SELECT datetime('2100-12-31', '-10 days')"},
		{"SELECT DATE_SUB(x, INTERVAL 1 DAY)", "SELECT DATE_SUB(x, INTERVAL 1 DAY)"},
		{"SELECT date_sub('2100-01-01', INTERVAL 1 DAY)", "SELECT date_sub('2100-01-01', INTERVAL 1 DAY)"},
		{"SELECT DATE_SUB('2100-01-01', INTERVAL 1 WEEK)", "SELECT DATE_SUB('2100-01-01', INTERVAL 1 WEEK)"},
		{"SELECT DATE_SUB('2100-01-01',INTERVAL 1 DAY)", "SELECT DATE_SUB('2100-01-01',INTERVAL 1 DAY)"},
		{"SELECT DATE_SUB('a', INTERVAL \u0661 DAY)", "SELECT datetime('a', '-\u0661 days')"},
		{"SELECT DATE_SUB(\u00fcber(), INTERVAL 3 DAY)", "SELECT datetime(\u00fcber(), '-3 days')"},
		{"SELECT DATE_ADD('2100-01-01', INTERVAL 01 MONTH), DATE_SUB(CURTIME(), INTERVAL 1 YEAR)", "SELECT datetime('2100-01-01', '+01 months'), datetime('23:59:00', '-1 year')"},
		{"SELECT DATE_SUB('2100-01-01' ,  INTERVAL 5 DAY)", "SELECT datetime('2100-01-01', '-5 days')"},
		{"SELECT DATE_SUB('2100-01-01', INTERVAL 1 day)", "SELECT DATE_SUB('2100-01-01', INTERVAL 1 day)"},
		{"SELECT strftime('%y', current_time), current_date, current_timestamp, my_current_time_col", "SELECT strftime('%Y', '2100-12-31 23:59:00'), '2100-12-31', '2100-12-31 23:59:00'stamp, my_'2100-12-31 23:59:00'_col"},
		{"SELECT datetime('now'), NOW(), now(), CURDATE(), CURTIME(), 'NOW'", "SELECT datetime('2100-12-31 23:59:00'), '2100-12-31 23:59:00', now(), '2100-12-31', '23:59:00', 'NOW'"},
		{"SELECT c.valuenum FROM chartevents c WHERE c.valuenum NOT BETWEEN diastolic_bp_lower AND diastolic_bp_upper", "SELECT c.valuenum FROM chartevents c WHERE c.valuenum NOT BETWEEN 60.0 AND 90.0"},
		{"SELECT 1 WHERE v BETWEEN heart_rate_lower AND sao2_upper", "SELECT 1 WHERE v BETWEEN heart_rate_lower AND sao2_upper"},
		{"SELECT 1 WHERE v > temperature_lower AND v < temperature_upper AND w > temperature_lower", "SELECT 1 WHERE v > 35.5 AND v < 38.1 AND w > 35.5"},
		{"SELECT 1 WHERE v > foo_lower AND v < foo_upper", "SELECT 1 WHERE v > foo_lower AND v < foo_upper"},
		{"SELECT 1 WHERE v >heart_rate_lower AND v < heart_rate_upper", "SELECT 1 WHERE v >heart_rate_lower AND v < heart_rate_upper"},
		{"SELECT 1 WHERE v > x_heart_rate_lower AND v < heart_rate_upper", "SELECT 1 WHERE v > x_heart_rate_lower AND v < heart_rate_upper"},
		{"SELECT 1 WHERE v > mean_bp_lower_lower AND v < mean_bp_upper", "SELECT 1 WHERE v > mean_bp_lower_lower AND v < mean_bp_upper"},
		{"SELECT 1 WHERE v >\u000arespiration_lower AND v < respiration_upper", "SELECT 1 WHERE v > 12.0 AND v < 18.0"},
		{"SELECT heart_rate_lower, heart_rate_upper, aheart_rate_lowerb", "SELECT 60.0, 100.0, a60.0b"},
		{"SELECT 1 WHERE v > sao2_lower AND v < systolic_bp_upper OR v < sao2_upper", "SELECT 1 WHERE v > sao2_lower AND v < systolic_bp_upper OR v < sao2_upper"},
		{"SELECT strftime('%j', x), '%y%j', '%Y'", "SELECT strftime('%J', x), '%Y%J', '%Y'"},
		{"", ""},
		{"   ", ""},
		{"NULL", "NULL"},
		{"None", "None"},
	} {
		if got := PostProcessSQL(tc.in); got != tc.want {
			t.Errorf("PostProcessSQL(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestPostProcessSQLIsIdempotentOnGoldStyle(t *testing.T) {
	q := "SELECT COUNT(*) FROM chartevents WHERE chartevents.valuenum NOT BETWEEN heart_rate_lower AND heart_rate_upper AND datetime(chartevents.charttime) >= datetime(current_time,'-1 year')"
	once := PostProcessSQL(q)
	if twice := PostProcessSQL(once); twice != once {
		t.Errorf("not idempotent:\n%s\n%s", once, twice)
	}
}
