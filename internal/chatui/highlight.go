package chatui

import (
	"strings"
)

// lang is what the highlighter knows of a language: its keywords and how a line comment
// starts.
type lang struct {
	keywords []string
	comments []string
}

// langOf returns the highlighting rules for a fence's language name, and false for one the
// highlighter does not know (its code is shown in one colour).
func langOf(name string) (lang, bool) {
	switch name {
	case "go", "golang":
		return lang{strings.Fields("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota"), []string{"//"}}, true
	case "py", "python":
		return lang{strings.Fields("and as assert async await break class continue def del elif else except finally for from global if import in is lambda None nonlocal not or pass raise return True False try while with yield self"), []string{"#"}}, true
	case "js", "javascript", "ts", "typescript", "jsx", "tsx":
		return lang{strings.Fields("async await break case catch class const continue default delete do else export extends false finally for from function if import in instanceof interface let new null of return super switch this throw true try type typeof undefined var void while yield"), []string{"//"}}, true
	case "sh", "bash", "shell", "zsh", "console":
		return lang{strings.Fields("if then else elif fi for while until do done case esac in function return export local echo cd exit set"), []string{"#"}}, true
	case "rust", "rs":
		return lang{strings.Fields("as async await break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while"), []string{"//"}}, true
	case "c", "cpp", "c++", "h", "java", "kotlin", "swift", "cs", "csharp":
		return lang{strings.Fields("auto break case catch char class const continue default do double else enum extern false final float for if int long new null nullptr private protected public return short static struct switch this throw true try typedef unsigned void volatile while import package"), []string{"//"}}, true
	case "json", "yaml", "yml", "toml":
		return lang{strings.Fields("true false null"), []string{"#"}}, true
	case "sql":
		return lang{strings.Fields("SELECT FROM WHERE INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE JOIN ON AND OR NOT NULL ORDER BY GROUP LIMIT select from where insert into values update set delete create table join on and or not null order by group limit"), []string{"--"}}, true
	}
	return lang{}, false
}

// highlight colours one line of code: keywords, strings, numbers and line comments. It reads
// one line at a time (a string or comment spanning lines is coloured on its first line only),
// which is what keeps it small and streaming-safe.
func highlight(line, name string) string {
	l, ok := langOf(name)
	if !ok {
		return sCodeBlock().Render(line)
	}
	var b strings.Builder
	i := 0
	for i < len(line) {
		c := line[i]
		if cm := commentAt(line[i:], l.comments); cm {
			b.WriteString(sComment().Render(line[i:]))
			return b.String()
		}
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(line) && line[j] != c {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(line))
			b.WriteString(sString().Render(line[i:j]))
			i = j
		case c >= '0' && c <= '9' && (i == 0 || !isIdentByte(line[i-1])):
			j := i
			for j < len(line) && (isIdentByte(line[j]) || line[j] == '.') {
				j++
			}
			b.WriteString(sNumber().Render(line[i:j]))
			i = j
		case isIdentByte(c):
			j := i
			for j < len(line) && isIdentByte(line[j]) {
				j++
			}
			w := line[i:j]
			switch {
			case contains(l.keywords, w):
				b.WriteString(sKeyword().Render(w))
			case j < len(line) && line[j] == '(':
				b.WriteString(sFunc().Render(w))
			default:
				b.WriteString(sCodeBlock().Render(w))
			}
			i = j
		default:
			j := i + 1
			for j < len(line) && !isIdentByte(line[j]) && !strings.ContainsRune("\"'`", rune(line[j])) && !commentAt(line[j:], l.comments) {
				j++
			}
			b.WriteString(sCodeBlock().Render(line[i:j]))
			i = j
		}
	}
	return b.String()
}

func commentAt(s string, starts []string) bool {
	for _, c := range starts {
		if strings.HasPrefix(s, c) {
			return true
		}
	}
	return false
}

func contains(words []string, w string) bool {
	for _, k := range words {
		if k == w {
			return true
		}
	}
	return false
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
