package recall_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
)

func ExampleIndex_Search() {
	ix := recall.NewIndex(recall.DefaultParams())
	ix.Put(memdir.Memory{File: "tabs.md", Name: "prefer-tabs", Description: "The user prefers tabs for indentation"})
	ix.Put(memdir.Memory{File: "friday.md", Name: "deploy-friday", Description: "Never deploy on Fridays", Body: "Deploying on a Friday broke production twice."})
	ix.Put(memdir.Memory{File: "db.md", Name: "数据库", Description: "数据库迁移文件放在 db/migrations"})

	for _, q := range []string{"can we deploy on friday?", "indenting", "迁移文件在哪里"} {
		hits := ix.Search(q, 1)
		fmt.Println(q, "→", hits[0].Memory.File)
	}
	// Output:
	// can we deploy on friday? → friday.md
	// indenting → tabs.md
	// 迁移文件在哪里 → db.md
}

func ExampleRecaller() {
	dir, _ := os.MkdirTemp("", "memory")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "deploy-friday.md"), []byte("---\nname: deploy-friday\ndescription: Never deploy on Fridays\ntype: feedback\n---\n\nDeploying on a Friday broke production twice.\n"), 0o600)

	store, _ := memdir.Open(dir, memdir.Options{})
	project := recall.Mount{Dir: store.Dir(), Ranker: recall.NewStoreRanker(store, recall.RankerOptions{})}
	r := recall.NewRecaller([]recall.Mount{project}, recall.Options{
		Stats: recall.NewStats(store.Dir()), // counts recalls in .recall-stats.json
	})
	session := recall.NewSession()
	for _, msg := range []string{"Let's deploy this on Friday", "and deploy the docs too"} {
		res, err := r.Recall(context.Background(), session, recall.Turn{Query: msg})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q: %d recalled, %d skipped\n", msg, len(res.Memories), len(res.Skipped))
		for _, m := range res.Memories {
			fmt.Println(" ", m.File, "—", m.Content)
		}
	}
	// Output:
	// "Let's deploy this on Friday": 1 recalled, 0 skipped
	//   deploy-friday.md — Deploying on a Friday broke production twice.
	// "and deploy the docs too": 0 recalled, 1 skipped
}
