package chatui

import (
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/strata-mem/strata/internal/termtext"
)

// The palette: the 16 ANSI colours only, so that the terminal's own theme decides how they
// look (light or dark) and nothing depends on true-colour support.
var (
	cRed     = lipgloss.Color("1")
	cGreen   = lipgloss.Color("2")
	cYellow  = lipgloss.Color("3")
	cBlue    = lipgloss.Color("4")
	cMagenta = lipgloss.Color("5")
	cCyan    = lipgloss.Color("6")
	cGray    = lipgloss.Color("8")
	cOrange  = lipgloss.Color("208")
)

var (
	sBold      = lipgloss.NewStyle().Bold(true)
	sDim       = lipgloss.NewStyle().Foreground(cGray)
	sHeading1  = lipgloss.NewStyle().Bold(true).Underline(true).Foreground(cMagenta)
	sHeading   = lipgloss.NewStyle().Bold(true).Foreground(cMagenta)
	sBullet    = lipgloss.NewStyle().Foreground(cCyan)
	sQuote     = lipgloss.NewStyle().Italic(true)
	sLink      = lipgloss.NewStyle().Underline(true).Foreground(cBlue)
	sCode      = lipgloss.NewStyle().Foreground(cCyan)
	sCodeBlock = lipgloss.NewStyle()
	sKeyword   = lipgloss.NewStyle().Foreground(cMagenta)
	sString    = lipgloss.NewStyle().Foreground(cGreen)
	sNumber    = lipgloss.NewStyle().Foreground(cYellow)
	sComment   = lipgloss.NewStyle().Foreground(cGray).Italic(true)
	sFunc      = lipgloss.NewStyle().Foreground(cBlue)
	sAdd       = lipgloss.NewStyle().Foreground(cGreen)
	sDel       = lipgloss.NewStyle().Foreground(cRed)
	sTool      = lipgloss.NewStyle().Bold(true)
	sOK        = lipgloss.NewStyle().Foreground(cGreen)
	sErr       = lipgloss.NewStyle().Foreground(cRed)
	sWarn      = lipgloss.NewStyle().Foreground(cYellow)
	sSpinner   = lipgloss.NewStyle().Foreground(cOrange)
	sPrompt    = lipgloss.NewStyle().Foreground(cGray)
	sUser      = lipgloss.NewStyle().Foreground(cGray)
	sBox       = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(cGray).Padding(0, 1)
	sAskBox    = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(cYellow).Padding(0, 1)
	sKey       = lipgloss.NewStyle().Bold(true).Foreground(cYellow)
	sSelected  = lipgloss.NewStyle().Foreground(cCyan).Bold(true)
)

// cols is how many columns styled text takes: termtext.Width, strata's one width function
// (CJK characters two columns), on the text without its escape sequences.
func cols(s string) int { return termtext.Width(ansi.Strip(s)) }
