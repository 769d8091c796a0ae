package chatui

import (
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/strata-mem/strata/internal/termtext"
)

// The palette uses the 16 ANSI colours only (and one of the 256), so that the terminal's own
// theme decides how they look (light or dark) and nothing depends on true-colour support. The
// styles are built on first use, not at package initialisation: every strata process links
// this package, and only the chat draws.
type styleSet struct {
	sBold      lipgloss.Style
	sDim       lipgloss.Style
	sHeading1  lipgloss.Style
	sHeading   lipgloss.Style
	sBullet    lipgloss.Style
	sQuote     lipgloss.Style
	sLink      lipgloss.Style
	sCode      lipgloss.Style
	sCodeBlock lipgloss.Style
	sKeyword   lipgloss.Style
	sString    lipgloss.Style
	sNumber    lipgloss.Style
	sComment   lipgloss.Style
	sFunc      lipgloss.Style
	sAdd       lipgloss.Style
	sDel       lipgloss.Style
	sTool      lipgloss.Style
	sOK        lipgloss.Style
	sErr       lipgloss.Style
	sWarn      lipgloss.Style
	sSpinner   lipgloss.Style
	sPrompt    lipgloss.Style
	sUser      lipgloss.Style
	sBox       lipgloss.Style
	sAskBox    lipgloss.Style
	sKey       lipgloss.Style
	sSelected  lipgloss.Style
}

var styles = sync.OnceValue(func() *styleSet {
	cRed := lipgloss.Color("1")
	cGreen := lipgloss.Color("2")
	cYellow := lipgloss.Color("3")
	cBlue := lipgloss.Color("4")
	cMagenta := lipgloss.Color("5")
	cCyan := lipgloss.Color("6")
	cGray := lipgloss.Color("8")
	cOrange := lipgloss.Color("208")
	return &styleSet{
		sBold:      lipgloss.NewStyle().Bold(true),
		sDim:       lipgloss.NewStyle().Foreground(cGray),
		sHeading1:  lipgloss.NewStyle().Bold(true).Underline(true).Foreground(cMagenta),
		sHeading:   lipgloss.NewStyle().Bold(true).Foreground(cMagenta),
		sBullet:    lipgloss.NewStyle().Foreground(cCyan),
		sQuote:     lipgloss.NewStyle().Italic(true),
		sLink:      lipgloss.NewStyle().Underline(true).Foreground(cBlue),
		sCode:      lipgloss.NewStyle().Foreground(cCyan),
		sCodeBlock: lipgloss.NewStyle(),
		sKeyword:   lipgloss.NewStyle().Foreground(cMagenta),
		sString:    lipgloss.NewStyle().Foreground(cGreen),
		sNumber:    lipgloss.NewStyle().Foreground(cYellow),
		sComment:   lipgloss.NewStyle().Foreground(cGray).Italic(true),
		sFunc:      lipgloss.NewStyle().Foreground(cBlue),
		sAdd:       lipgloss.NewStyle().Foreground(cGreen),
		sDel:       lipgloss.NewStyle().Foreground(cRed),
		sTool:      lipgloss.NewStyle().Bold(true),
		sOK:        lipgloss.NewStyle().Foreground(cGreen),
		sErr:       lipgloss.NewStyle().Foreground(cRed),
		sWarn:      lipgloss.NewStyle().Foreground(cYellow),
		sSpinner:   lipgloss.NewStyle().Foreground(cOrange),
		sPrompt:    lipgloss.NewStyle().Foreground(cGray),
		sUser:      lipgloss.NewStyle().Foreground(cGray),
		sBox:       lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(cGray).Padding(0, 1),
		sAskBox:    lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(cYellow).Padding(0, 1),
		sKey:       lipgloss.NewStyle().Bold(true).Foreground(cYellow),
		sSelected:  lipgloss.NewStyle().Foreground(cCyan).Bold(true),
	}
})

func sBold() lipgloss.Style      { return styles().sBold }
func sDim() lipgloss.Style       { return styles().sDim }
func sHeading1() lipgloss.Style  { return styles().sHeading1 }
func sHeading() lipgloss.Style   { return styles().sHeading }
func sBullet() lipgloss.Style    { return styles().sBullet }
func sQuote() lipgloss.Style     { return styles().sQuote }
func sLink() lipgloss.Style      { return styles().sLink }
func sCode() lipgloss.Style      { return styles().sCode }
func sCodeBlock() lipgloss.Style { return styles().sCodeBlock }
func sKeyword() lipgloss.Style   { return styles().sKeyword }
func sString() lipgloss.Style    { return styles().sString }
func sNumber() lipgloss.Style    { return styles().sNumber }
func sComment() lipgloss.Style   { return styles().sComment }
func sFunc() lipgloss.Style      { return styles().sFunc }
func sAdd() lipgloss.Style       { return styles().sAdd }
func sDel() lipgloss.Style       { return styles().sDel }
func sTool() lipgloss.Style      { return styles().sTool }
func sOK() lipgloss.Style        { return styles().sOK }
func sErr() lipgloss.Style       { return styles().sErr }
func sWarn() lipgloss.Style      { return styles().sWarn }
func sSpinner() lipgloss.Style   { return styles().sSpinner }
func sPrompt() lipgloss.Style    { return styles().sPrompt }
func sUser() lipgloss.Style      { return styles().sUser }
func sBox() lipgloss.Style       { return styles().sBox }
func sAskBox() lipgloss.Style    { return styles().sAskBox }
func sKey() lipgloss.Style       { return styles().sKey }
func sSelected() lipgloss.Style  { return styles().sSelected }

// cols is how many columns styled text takes: termtext.Width, strata's one width function
// (CJK characters two columns), on the text without its escape sequences.
func cols(s string) int { return termtext.Width(ansi.Strip(s)) }
