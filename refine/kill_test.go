package refine

const helperEnv = "CLINSQL_REFINE_HELPER"

func helperMain() int { return 0 }
