package transcript

import (
	"time"

	"github.com/strata-mem/strata/conversation"
)

type conversationMessage = conversation.Message

// time_Sleep is time.Sleep; inside a synctest bubble it advances the fake clock.
var time_Sleep = time.Sleep
