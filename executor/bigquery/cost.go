package bigquery

// On-demand billing rounds each query up to a whole MiB, with a minimum of
// 10 MiB per table referenced and per query
// (https://cloud.google.com/bigquery/pricing#on_demand_pricing).
const (
	billingUnit    = 1 << 20
	billingMinimum = 10 << 20
)

// EstimateBilled returns the bytes a query would be billed on demand, from
// its dry-run estimate of bytes processed and the number of tables it
// references. It is a lower bound when a referenced table contributes less
// than 10 MiB (the per-table minimum applies table by table, and a dry run
// reports only the total).
func EstimateBilled(processed int64, tables int) int64 {
	if processed < 0 {
		processed = 0
	}
	billed := (processed + billingUnit - 1) / billingUnit * billingUnit
	minimum := int64(billingMinimum) * int64(max(tables, 1))
	return max(billed, minimum)
}

// CostUSD prices bytes billed at pricePerTiB (USD per TiB).
func CostUSD(billed int64, pricePerTiB float64) float64 {
	return float64(billed) / (1 << 40) * pricePerTiB
}
