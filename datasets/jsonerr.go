package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// DescribeJSONError names the field of a type mismatch, or the byte offset
// of a syntax error: messages about JSON files say where the problem is.
func DescribeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %q: want %s, found JSON %s", te.Field, te.Type, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, err)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
