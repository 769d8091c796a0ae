package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// External is the input of a tool served by someone else (an MCP server's): the JSON object
// the model sent, passed on as it is; the server checks it against its own schema.
type External struct {
	Name string
	Args json.RawMessage
}

// Tool returns the tool's name.
func (e *External) Tool() string { return e.Name }

// DecodeExternal checks that raw is a JSON object (an empty raw is the empty object) and
// returns it as the input of the external tool name.
func DecodeExternal(name string, raw []byte) (Call, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("invalid input: want a JSON object")
	}
	return &External{Name: name, Args: json.RawMessage(raw)}, nil
}
