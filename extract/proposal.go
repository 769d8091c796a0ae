package extract

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

// RejectLog is the file, relative to the memory dir, that remembers the proposals a person
// rejected (`strata memory dream --reject`): one JSON object a line (Rejection), beside the
// archive log. A rejected proposal is not made again while the files it is about are unchanged,
// because its id hashes their content.
const RejectLog = memdir.ArchiveDir + "/REJECTED.log"

// Rejection is one line of RejectLog.
type Rejection struct {
	Time     time.Time `json:"time"`
	ID       string    `json:"id"`   // the proposal's id (Action.ID): kind, files and their content hashed
	Kind     string    `json:"kind"` // merge, supersede, forget, dangling, index
	File     string    `json:"file"`
	Survivor string    `json:"survivor,omitempty"`
	Reason   string    `json:"reason,omitempty"` // the proposal's reason, as it was shown
}

// ModelProposalsFile is where, relative to the memory dir, the model's last proposals are kept
// (SaveModelProposals), so that accepting or rejecting one acts on what the model said, not on a
// new answer.
const ModelProposalsFile = memdir.ArchiveDir + "/MODEL-PROPOSALS.json"

// SaveModelProposals replaces ModelProposalsFile of the memory dir dir with props; with no
// proposals and no file it writes nothing.
func SaveModelProposals(dir string, props []ModelProposal) error {
	p := filepath.Join(dir, filepath.FromSlash(ModelProposalsFile))
	if _, err := os.Lstat(p); len(props) == 0 && errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), fsutil.DirMode); err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	data, err := json.MarshalIndent(struct {
		Proposals []ModelProposal `json:"proposals"`
	}{append([]ModelProposal{}, props...)}, "", "  ")
	if err != nil {
		return fmt.Errorf("extract: %s: %w", p, err)
	}
	if err := fsutil.WriteFile(p, append(data, '\n'), fsutil.FileMode); err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	return nil
}

// LoadModelProposals returns the proposals SaveModelProposals kept in dir (none when there is
// no file). Each still carries the hash of its files, so PlanDream drops those whose files
// changed since.
func LoadModelProposals(dir string) ([]ModelProposal, error) {
	p := filepath.Join(dir, filepath.FromSlash(ModelProposalsFile))
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	var f struct {
		Proposals []ModelProposal `json:"proposals"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("extract: %s is corrupt (the model's last proposals are not used): %w", p, err)
	}
	return f.Proposals, nil
}

// proposalID is the id of the step kind on file (with survivor kept instead): a hash of the
// three and of the content of both files (content[f], "" for a file that is not there), so that
// the same proposal about the same text has the same id in every run, and an edit to either
// file makes it a new proposal.
func proposalID(kind, file, survivor string, content map[string]string) string {
	h := sha256.New()
	for _, s := range []string{kind, file, survivor, content[file], content[survivor]} {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// memoryContent is what a proposal id hashes of a memory: everything strata reads of it.
func memoryContent(m memdir.Memory) string {
	return strings.Join([]string{m.Name, m.Description, string(m.Type), m.Modified.UTC().Format(time.RFC3339Nano), m.Body}, "\x00")
}

// Decidable reports whether a person can accept or reject the step on its own: it archives or
// takes index lines out (now or once accepted) and has an id. The rest are reports (stale,
// conflict).
func (a Action) Decidable() bool { return a.ID != "" && (a.Archive || a.Proposed) }

// Matches reports whether sel names the step: its file, its id, or its kind ("dangling" selects
// every dangling step). It is how --accept and --reject pick steps.
func (a Action) Matches(sel string) bool {
	return sel != "" && (sel == a.File || sel == a.ID || sel == a.Kind)
}

// reviewOnly reports whether a step may only be carried out once a person accepted it: the
// removal of a dangling index line (Claude Code does nothing with such a line, so removing it
// helps nothing the model sees) and a model's proposal the deterministic checks did not back.
func reviewOnly(a Action) bool { return a.Kind == KindDangling || a.Guard != "" }

// mayArchive decides whether an archiving step of a plan is carried out or left proposed.
func mayArchive(a Action, opts Options) bool {
	switch {
	case len(opts.Only) > 0:
		return slices.ContainsFunc(opts.Only, a.Matches)
	case opts.ExactOnly:
		return a.Exact
	default:
		return !reviewOnly(a)
	}
}

// RejectSteps records in the memory dir's RejectLog that a person rejected the steps (their ids),
// so that PlanDream leaves them out while their files are unchanged.
func RejectSteps(dir string, now time.Time, steps []Action) error {
	var buf bytes.Buffer
	for _, a := range steps {
		data, err := json.Marshal(Rejection{Time: now.UTC(), ID: a.ID, Kind: a.Kind, File: a.File, Survivor: a.Survivor, Reason: a.Reason})
		if err != nil {
			return fmt.Errorf("extract: reject: %w", err)
		}
		buf.Write(append(data, '\n'))
	}
	if err := fsutil.AppendFileIn(dir, filepath.FromSlash(RejectLog), buf.Bytes()); err != nil {
		return fmt.Errorf("extract: reject: %w", err)
	}
	return nil
}

// ReadRejections returns the ids rejected in the memory dir dir (RejectLog); a missing file has
// none. A line that is not a rejection (a torn last line) is skipped.
func ReadRejections(dir string) (map[string]bool, error) {
	data, err := fsutil.ReadFileIn(dir, filepath.FromSlash(RejectLog), 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	out := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var r Rejection
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID != "" {
			out[r.ID] = true
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("extract: %s: %w", filepath.Join(dir, filepath.FromSlash(RejectLog)), err)
	}
	return out, nil
}
