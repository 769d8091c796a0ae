package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// schema is the subset of JSON Schema the tool schemas use that Decode enforces: the type of
// each value, the properties of an object, its required keys, additionalProperties:false and
// the items of an array. Range and enum constraints are left to the tools, whose errors say
// more.
type schema struct {
	Type                 string             `json:"type"`
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	AdditionalProperties *bool              `json:"additionalProperties"`
	Items                *schema            `json:"items"`
}

func mustSchema(text string) *schema {
	var s schema
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		panic(fmt.Sprintf("toolcall: bad schema %s: %v", text, err))
	}
	return &s
}

// validate checks that raw holds exactly one JSON value that s accepts.
func validate(raw []byte, s *schema) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := check(dec, s, ""); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more than one JSON value")
	}
	return nil
}

// check reads one value from dec and checks it against s (nil: any value); at names where it
// is ("" for the whole input).
func check(dec *json.Decoder, s *schema, at string) error {
	tok, err := dec.Token()
	if err != nil {
		return notJSON(err)
	}
	want := ""
	if s != nil {
		want = s.Type
	}
	d, isDelim := tok.(json.Delim)
	switch {
	case isDelim && d == '{' && (want == "object" || want == ""):
		return checkObject(dec, s, at)
	case isDelim && d == '[' && (want == "array" || want == ""):
		var items *schema
		if s != nil {
			items = s.Items
		}
		for i := 0; dec.More(); i++ {
			if err := check(dec, items, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		_, err := dec.Token()
		return notJSON(err)
	case want == "":
		if isDelim {
			return fmt.Errorf("unexpected %q", d)
		}
		return nil
	}
	ok := false
	switch v := tok.(type) {
	case string:
		ok = want == "string"
	case bool:
		ok = want == "boolean"
	case json.Number:
		switch want {
		case "number":
			ok = true
		case "integer":
			_, perr := strconv.ParseInt(v.String(), 10, 64)
			ok = perr == nil
		}
	}
	if !ok {
		what := "the input"
		if at != "" {
			what = strconv.Quote(at)
		}
		return fmt.Errorf("%s must be %s %s, not %s", what, article(want), want, kind(tok))
	}
	return nil
}

// checkObject checks the members of an object whose '{' was read.
func checkObject(dec *json.Decoder, s *schema, at string) error {
	seen := map[string]string{} // folded key -> key as written
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return notJSON(err)
		}
		key := tok.(string) // the decoder allows only strings here
		if prev, dup := seen[foldKey(key)]; dup {
			if prev == key {
				return fmt.Errorf("key %q appears twice%s", key, in(at))
			}
			return fmt.Errorf("keys %q and %q are the same key in a different letter case%s; send it once, spelled as the schema spells it", prev, key, in(at))
		}
		seen[foldKey(key)] = key
		var prop *schema
		if s != nil {
			prop = s.Properties[key]
			if prop == nil && s.AdditionalProperties != nil && !*s.AdditionalProperties {
				return unknownKey(key, s, at)
			}
		}
		if err := check(dec, prop, join(at, key)); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return notJSON(err)
	}
	if s != nil {
		for _, r := range s.Required {
			if _, ok := seen[foldKey(r)]; !ok {
				return fmt.Errorf("missing required key %q%s", r, in(at))
			}
		}
	}
	return nil
}

func unknownKey(key string, s *schema, at string) error {
	for name := range s.Properties {
		if foldKey(name) == foldKey(key) {
			return fmt.Errorf("unknown key %q%s (keys are case-sensitive: the key is %q)", key, in(at), name)
		}
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, strconv.Quote(name))
	}
	slices.Sort(names)
	return fmt.Errorf("unknown key %q%s; the keys are %s", key, in(at), strings.Join(names, ", "))
}

// foldKey folds a key the way encoding/json matches keys to fields: each rune to the smallest
// rune of its case-folding orbit, so two keys fold alike exactly when json would take one for
// the other.
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		b.WriteRune(r)
	}
	return b.String()
}

func notJSON(err error) error {
	if err == nil {
		return nil
	}
	if err == io.EOF {
		return errors.New("not valid JSON: unexpected end of input")
	}
	return fmt.Errorf("not valid JSON: %v", err)
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

func in(at string) string {
	if at == "" {
		return ""
	}
	return " in " + strconv.Quote(at)
}

func article(t string) string {
	if t == "integer" || t == "object" || t == "array" {
		return "an"
	}
	return "a"
}

func kind(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case string:
		if utf8.RuneCountInString(v) > 40 {
			return "a string"
		}
		return "the string " + strconv.Quote(v)
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + v.String()
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	}
	return fmt.Sprintf("%T", tok)
}
