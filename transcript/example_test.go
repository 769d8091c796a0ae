package transcript_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/transcript"
)

// A session writes its transcript through a Journal and is later resumed with Load.
func Example() {
	ctx := context.Background()
	home, _ := os.MkdirTemp("", "strata-example")
	defer os.RemoveAll(home)
	env := config.Env{Home: home}
	path := transcript.SessionPath(env, "/src/app", transcript.NewSessionID())

	j, err := transcript.Open(ctx, path, transcript.Options{CWD: "/src/app", SessionID: transcript.SessionIDOf(path)})
	if err != nil {
		panic(err)
	}
	j.AppendMessage(conversation.NewText(conversation.User, "What does main.go do?"), false)
	j.AppendMessage(conversation.NewText(conversation.Assistant, "It starts the server."), false)
	j.Sync(ctx) // end of turn: durable
	j.Append(&transcript.Entry{Type: transcript.TypeCustomTitle, CustomTitle: "server question"})
	j.Close(ctx)

	s, err := transcript.Load(ctx, path, transcript.ReadOptions{})
	if err != nil {
		panic(err)
	}
	msgs, _ := transcript.Messages(s.Live())
	fmt.Println(s.Meta.Title(), len(msgs), msgs[1].TextOf())

	infos, _ := transcript.List(ctx, filepath.Dir(path), transcript.ListOptions{})
	fmt.Println(infos[0].Label())
	// Output:
	// server question 2 It starts the server.
	// server question
}
