package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/memdir"
)

// Kinds of ModelProposal.
const (
	ProposeMerge      = "merge"         // Archive says nothing Keep does not
	ProposeContradict = "contradiction" // Archive is outdated: Keep says otherwise about the same thing
)

// ModelProposal is one step a model proposed: archive one memory file in favour of another,
// with the model's reason. PlanDream checks it before it may archive anything: a merge only
// between memories about the same subject (the same name, or near-duplicates by the
// deterministic similarity), a contradiction only there too and only when the memory kept is
// the newer one. A proposal the checks do not back stays in the plan as a proposal (Action.Guard
// says why), for a person to accept or reject; the model's word alone never archives.
type ModelProposal struct {
	Kind    string `json:"kind"`
	Archive string `json:"archive"` // the memory file that would go
	Keep    string `json:"keep"`    // the memory file kept instead
	Reason  string `json:"reason"`  // the model's reason, one sentence
	// Content hashes both files as the model saw them (AskModel sets it); a proposal whose
	// files changed since is dropped. Empty means not checked.
	Content string `json:"content,omitempty"`
}

// pairContent is ModelProposal.Content for the memories a (archived) and k (kept).
func pairContent(a, k memdir.Memory) string {
	return proposalID("model", a.File, k.File, map[string]string{a.File: memoryContent(a), k.File: memoryContent(k)})
}

// Bounds of the request AskModel sends.
const (
	// modelBodyBytes is how much of each memory's body the model sees.
	modelBodyBytes = 2000
	// modelRequestBytes bounds the memories' text in one request; memories past it are left
	// out (and cannot be proposed), newest first being kept.
	modelRequestBytes = 150_000
	// modelMaxTokens caps the reply.
	modelMaxTokens = 4096
)

const judgePrompt = `You review the long-term memory of a coding agent for one project. You get its memory files,
each with its file name, name, type, description, last change and body. Find two things:

1. Merges: two memories that say the same thing, so that one can go because the other already
   holds everything it says.
2. Contradictions: two memories that state different things about the same subject, so that
   the outdated one can go.

Propose nothing else. Memories that only share a format, a label ("Why:", "How to apply:",
"Status:", "관련:"), a type or a topic word are neither. When you are not sure, leave it out:
a person reviews what you propose, and a wrong merge loses knowledge.

Reply with one JSON object and nothing else, in exactly this shape:
{"merges": [{"archive": "FILE", "keep": "FILE", "reason": "ONE SENTENCE"}],
 "contradictions": [{"archive": "FILE", "keep": "FILE", "reason": "ONE SENTENCE"}]}
"archive" is the file that can go, "keep" the one that stays (for a contradiction, the one that
is right now); use the file names exactly as given. Write the reason in the language of the
memories. Use empty lists when there is nothing to do.`

// ErrModelReply is wrapped by the error AskModel returns when the model's reply is not the
// asked JSON (the error says what is wrong); nothing is planned from such a reply.
var ErrModelReply = errors.New("the model's reply is not the asked JSON")

// AskModel asks the model, in one request, which of mems are duplicates and which contradict
// each other, and returns its proposals, each naming two files of mems and a reason. With fewer
// than two memories it asks nothing. A reply that is not the asked JSON object (unknown keys,
// a missing or empty field, a file that is not one of mems, a file kept and archived at once)
// is an error wrapping ErrModelReply; the caller must then archive nothing on its account.
func AskModel(ctx context.Context, p llm.Provider, model string, mems []memdir.Memory) ([]ModelProposal, error) {
	if len(mems) < 2 {
		return nil, nil
	}
	var b strings.Builder
	known := map[string]bool{}
	byFile := map[string]memdir.Memory{}
	for _, m := range mems {
		byFile[m.File] = m
		body := m.Body
		if len(body) > modelBodyBytes {
			cut := strings.LastIndexByte(body[:modelBodyBytes], '\n')
			if cut < modelBodyBytes/2 {
				cut = modelBodyBytes
				for cut > 0 && body[cut]&0xC0 == 0x80 {
					cut-- // never split a UTF-8 character
				}
			}
			body = body[:cut] + "\n[… cut]"
		}
		when := m.ModTime
		if m.Modified.After(when) {
			when = m.Modified
		}
		entry := fmt.Sprintf("<memory file=%q>\nname: %s\ntype: %s\ndescription: %s\nchanged: %s\n\n%s\n</memory>\n\n",
			m.File, m.Name, m.Type, m.Description, when.UTC().Format(time.DateOnly), strings.TrimSpace(body))
		if b.Len()+len(entry) > modelRequestBytes {
			break
		}
		b.WriteString(entry)
		known[m.File] = true
	}
	resp, err := llm.Complete(ctx, p, &llm.Request{
		Model:     model,
		System:    []llm.SystemBlock{{Text: judgePrompt}},
		Messages:  []conversation.Message{conversation.NewText(conversation.User, "The memory files:\n\n"+b.String())},
		MaxTokens: modelMaxTokens,
	})
	if err != nil {
		return nil, fmt.Errorf("extract: dream: ask the model: %w", err)
	}
	if resp.StopReason == llm.StopMaxTokens {
		return nil, fmt.Errorf("extract: dream: %w: it was cut at %d tokens", ErrModelReply, modelMaxTokens)
	}
	out, err := ParseModelReply(resp.Message.TextOf(), known)
	if err != nil {
		return nil, fmt.Errorf("extract: dream: %w", err)
	}
	for i, p := range out {
		out[i].Content = pairContent(byFile[p.Archive], byFile[p.Keep])
	}
	return out, nil
}

// ParseModelReply reads the model's reply to AskModel's request: one JSON object (a markdown
// code fence around it is allowed) with "merges" and "contradictions", each a list of
// {"archive", "keep", "reason"}. Every file must be in known. The error wraps ErrModelReply and
// says what is wrong, where.
func ParseModelReply(text string, known map[string]bool) ([]ModelProposal, error) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "```") {
		t = strings.TrimPrefix(t, "```json")
		t = strings.TrimPrefix(t, "```")
		t = strings.TrimSuffix(strings.TrimSpace(t), "```")
	}
	type item struct {
		Archive *string `json:"archive"`
		Keep    *string `json:"keep"`
		Reason  *string `json:"reason"`
	}
	var reply struct {
		Merges         *[]item `json:"merges"`
		Contradictions *[]item `json:"contradictions"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(t)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&reply); err != nil {
		return nil, fmt.Errorf("%w: %v (reply: %.200q)", ErrModelReply, err, text)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: text after the JSON object (reply: %.200q)", ErrModelReply, text)
	}
	if reply.Merges == nil || reply.Contradictions == nil {
		return nil, fmt.Errorf("%w: \"merges\" and \"contradictions\" are both required (reply: %.200q)", ErrModelReply, text)
	}
	var out []ModelProposal
	for _, list := range []struct {
		key, kind string
		items     []item
	}{{"merges", ProposeMerge, *reply.Merges}, {"contradictions", ProposeContradict, *reply.Contradictions}} {
		for i, it := range list.items {
			where := fmt.Sprintf("%s[%d]", list.key, i)
			for _, f := range []struct {
				name string
				v    *string
			}{{"archive", it.Archive}, {"keep", it.Keep}, {"reason", it.Reason}} {
				if f.v == nil || strings.TrimSpace(*f.v) == "" {
					return nil, fmt.Errorf("%w: %s: %q is missing", ErrModelReply, where, f.name)
				}
			}
			for _, f := range []string{*it.Archive, *it.Keep} {
				if !known[f] {
					return nil, fmt.Errorf("%w: %s: %q is not one of the memory files", ErrModelReply, where, f)
				}
			}
			if *it.Archive == *it.Keep {
				return nil, fmt.Errorf("%w: %s: %q is both archived and kept", ErrModelReply, where, *it.Archive)
			}
			out = append(out, ModelProposal{Kind: list.kind, Archive: *it.Archive, Keep: *it.Keep,
				Reason: strings.Join(strings.Fields(*it.Reason), " ")})
		}
	}
	return out, nil
}

// modelSteps turns a model's proposals into plan steps, each checked by the deterministic
// rules (see ModelProposal). A proposal about a file the plan already archives, or about a file
// that is no longer there, is dropped; open gives each step its id and drops rejected ones.
func modelSteps(props []ModelProposal, byFile map[string]*candidate, archived map[string]bool, open func(*Action) bool) (merges, supers []Action) {
	seen := map[string]bool{}
	for _, p := range props {
		c, k := byFile[p.Archive], byFile[p.Keep]
		if c == nil || k == nil || c == k || archived[p.Archive] || seen[p.Archive] ||
			p.Content != "" && p.Content != pairContent(c.m, k.m) {
			continue
		}
		a := Action{File: p.Archive, Name: c.m.Name, Survivor: p.Keep, Archive: true, Model: true}
		switch {
		case archived[p.Keep]:
			a.Guard = "the memory it would keep is archived by this plan too"
		case !sameSubject(c, k):
			a.Guard = fmt.Sprintf("the two memories share neither a name nor enough text (similarity %.2f, at least %.2f needed)", similarity(c, k), DefaultSubjectThreshold)
		case p.Kind == ProposeContradict && k.when.Before(c.when):
			a.Guard = "the memory it would keep is the older one"
		}
		if p.Kind == ProposeContradict {
			a.Kind = KindSupersede
			a.Reason = fmt.Sprintf("the model: %s (contradicted by %s)", p.Reason, p.Keep)
		} else {
			a.Kind = KindMerge
			a.Reason = fmt.Sprintf("the model: %s (%s holds it all)", p.Reason, p.Keep)
		}
		if a.Guard != "" {
			a.Reason += "; not archived on the model's word alone: " + a.Guard
		}
		if !open(&a) {
			continue
		}
		// A proposal counts as gone for the rest of the plan, as a dangling line does, so no
		// other step acts on its file.
		seen[p.Archive], archived[p.Archive] = true, true
		if a.Kind == KindSupersede {
			supers = append(supers, a)
		} else {
			merges = append(merges, a)
		}
	}
	return merges, supers
}
