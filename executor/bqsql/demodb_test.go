package bqsql

import (
	"bufio"
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/clinsql/clinsql/internal/shared"
)

// The acceptance tests need MIMIC-IV in DuckDB. Until the engine's own
// `clinsql db build` lands on this branch, demoDB loads the open demo from
// ../shared with the BigQuery column types of MIMIC-IV v3.1 (rules below,
// from MIT-LCP/mimic-code's BigQuery schemas). Tables absent from the demo
// (icu.chartevents) and derived.charlson exist but are empty, which is what
// "runs without error" needs.

var (
	int64Cols = wordSet(`subject_id hadm_id stay_id itemid seq_num icd_version anchor_age anchor_year
		hospital_expire_flag pharmacy_id poe_seq emar_seq labevent_id specimen_id microevent_id
		micro_specimen_id spec_itemid test_seq test_itemid org_itemid isolate_num ab_itemid transfer_id
		orderid linkorderid isopenbag continueinnextdept cancelreason warning drg_severity drg_mortality
		expiration_value caregiver_id`)
	float64Cols = wordSet(`valuenum ref_range_lower ref_range_upper los amount rate patientweight totalamount
		originalamount originalrate doses_per_24_hrs basal_rate duration dilution_value lownormalvalue
		highnormalvalue`)
	datetimeCols = wordSet(`admittime dischtime deathtime edregtime edouttime intime outtime charttime
		storetime starttime stoptime endtime entertime verifiedtime expirationdate scheduletime ordertime
		transfertime storedate`)
)

// bqColumnType is the BigQuery type of a MIMIC-IV v3.1 column.
func bqColumnType(table, col string) string {
	c := strings.ToUpper(col)
	switch {
	case table == "d_hcpcs" && c == "CATEGORY":
		return "INT64"
	case (table == "outputevents" || table == "procedureevents") && c == "VALUE":
		return "FLOAT64"
	case table == "datetimeevents" && c == "VALUE":
		return "DATETIME"
	case c == "CHARTDATE":
		if table == "microbiologyevents" {
			return "DATETIME"
		}
		return "DATE"
	case c == "DOD":
		return "DATE"
	case int64Cols[c]:
		return "INT64"
	case float64Cols[c]:
		return "FLOAT64"
	case datetimeCols[c]:
		return "DATETIME"
	}
	return "STRING"
}

var duckOf = map[string]string{"INT64": "BIGINT", "FLOAT64": "DOUBLE", "STRING": "VARCHAR",
	"DATE": "DATE", "DATETIME": "TIMESTAMP"}

var missingTables = map[string][]string{
	"mimiciv_3_1_icu.chartevents": {"subject_id", "hadm_id", "stay_id", "caregiver_id", "charttime",
		"storetime", "itemid", "value", "valuenum", "valueuom", "warning"},
	"mimiciv_3_1_derived.charlson": {"subject_id", "hadm_id", "age_score", "myocardial_infarct",
		"congestive_heart_failure", "peripheral_vascular_disease", "cerebrovascular_disease", "dementia",
		"chronic_pulmonary_disease", "rheumatic_disease", "peptic_ulcer_disease", "mild_liver_disease",
		"diabetes_without_cc", "diabetes_with_cc", "paraplegia", "renal_disease", "malignant_cancer",
		"severe_liver_disease", "metastatic_solid_tumor", "aids", "charlson_comorbidity_index"},
}

var demo struct {
	once sync.Once
	db   *sql.DB
	cat  Catalog
	err  error
}

// demoDB returns the process-wide demo database and its catalog, skipping
// the test when ../shared is absent.
func demoDB(tb testing.TB) (*sql.DB, Catalog) {
	tb.Helper()
	dir := shared.Path(tb, "mimic-iv-demo")
	demo.once.Do(func() {
		db := openDuckShared()
		demo.err = loadDemo(db, dir)
		if demo.err == nil {
			demo.cat, demo.err = LoadCatalog(context.Background(), db)
		}
		demo.db = db
	})
	if demo.err != nil {
		tb.Fatalf("build demo database: %v", demo.err)
	}
	return demo.db, demo.cat
}

func loadDemo(db *sql.DB, dir string) error {
	ctx := context.Background()
	for _, s := range []string{"mimiciv_3_1_hosp", "mimiciv_3_1_icu", "mimiciv_3_1_derived"} {
		if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+s); err != nil {
			return err
		}
	}
	for _, mod := range []string{"hosp", "icu"} {
		files, err := filepath.Glob(filepath.Join(dir, mod, "*.csv.gz"))
		if err != nil {
			return err
		}
		sort.Strings(files)
		for _, f := range files {
			table := strings.TrimSuffix(filepath.Base(f), ".csv.gz")
			cols, err := csvHeader(f)
			if err != nil {
				return err
			}
			var spec []string
			for _, c := range cols {
				spec = append(spec, fmt.Sprintf("'%s': '%s'", c, duckOf[bqColumnType(table, c)]))
			}
			q := fmt.Sprintf("CREATE TABLE mimiciv_3_1_%s.%s AS SELECT * FROM read_csv('%s', header = true, "+
				"columns = {%s}, auto_detect = false, quote = '\"', escape = '\"')",
				mod, table, f, strings.Join(spec, ", "))
			if _, err := db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
		}
	}
	for qual, cols := range missingTables {
		_, table, _ := strings.Cut(qual, ".")
		var defs []string
		for _, c := range cols {
			typ := "BIGINT"
			if table == "chartevents" {
				typ = duckOf[bqColumnType(table, c)]
			}
			defs = append(defs, c+" "+typ)
		}
		if _, err := db.ExecContext(ctx, "CREATE TABLE "+qual+" ("+strings.Join(defs, ", ")+")"); err != nil {
			return err
		}
	}
	return nil
}

func csvHeader(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	line, err := bufio.NewReader(zr).ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	return strings.Split(strings.TrimSpace(line), ","), nil
}
