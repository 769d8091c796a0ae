package transcript

import (
	"bytes"
	"encoding/json"
)

// jsonMarshal is json.Marshal without HTML escaping and without the trailing newline.
func jsonMarshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
