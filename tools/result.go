package tools

import (
	"encoding/json"
)

// jsonResult encodes v as a JSON result.
func jsonResult(v any, failed bool) Result {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": "encoding the result: " + err.Error()})
		failed = true
	}
	return Result{Output: string(b), JSON: true, Failed: failed}
}

// errorResult is the spec's simple error shape {"error": msg}.
func errorResult(msg string) Result {
	return jsonResult(map[string]string{"error": msg}, true)
}

// opError is the spec's {"success": false, "error": msg}.
func opError(msg string) Result {
	return jsonResult(map[string]any{"success": false, "error": msg}, true)
}

// refusal is opError for a call that was not run because something said
// no (a guardrail, a hook, the policy, the person): Refused is set.
func refusal(msg string) Result {
	r := opError(msg)
	r.Refused = true
	return r
}

// blockedResult is the spec's {"blocked": true, "reason": ...}: the secret
// gate refused the path.
func blockedResult(reason string) Result {
	r := jsonResult(map[string]any{"blocked": true, "reason": reason}, true)
	r.Refused = true
	return r
}

// textResult is a plain-text result.
func textResult(s string) Result { return Result{Output: s} }

// JSONResult encodes v as a JSON result (failed marks a failure).
func JSONResult(v any, failed bool) Result { return jsonResult(v, failed) }

// ErrorResult is the spec's simple error shape {"error": msg}.
func ErrorResult(msg string) Result { return errorResult(msg) }

// OpErrorResult is the spec's {"success": false, "error": msg}.
func OpErrorResult(msg string) Result { return opError(msg) }
