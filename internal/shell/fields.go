package shell

import (
	"errors"
	"fmt"
)

// Fields splits a command line held in a variable, such as $EDITOR or $VISUAL, into its
// words the way the shell would: quotes and backslashes removed ("'/opt/My Editor/ed' -w"
// is two words), nothing expanded. It must be one simple command of literal words; anything
// else — an expansion, a substitution, an operator, a redirection, an assignment, a glob —
// is an error that says what it found, since running the words without a shell would not
// do what the shell would.
func Fields(s string) ([]string, error) {
	script, err := Parse(s)
	if err != nil {
		return nil, err
	}
	if len(script.Commands) == 0 {
		return nil, errors.New("shell: no command")
	}
	c, ok := script.Simple()
	if !ok {
		if len(script.Constructs) > 0 {
			return nil, fmt.Errorf("shell: %s: not one command of plain words", script.Constructs[0])
		}
		return nil, errors.New("shell: not one command of plain words")
	}
	words := make([]string, 0, len(c.Words))
	for _, w := range c.Words {
		if w.Glob {
			return nil, fmt.Errorf("shell: %q would be expanded as a glob or brace expansion", w.Text)
		}
		words = append(words, w.Text)
	}
	return words, nil
}
