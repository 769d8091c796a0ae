package llm

// Price is what a model costs in US dollars per million tokens, by kind of token.
type Price struct {
	Input, Output, CacheWrite, CacheRead float64
}

// Cost returns what u cost at p, in US dollars.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output +
		float64(u.CacheCreationInputTokens)*p.CacheWrite + float64(u.CacheReadInputTokens)*p.CacheRead) / 1e6
}

// prices are the public list prices of the hosted model families (longest matching prefix
// wins); local and unknown models have none.
var prices = map[string]Price{
	"claude-opus-4-5":   {5, 25, 6.25, 0.50},
	"claude-opus-4":     {15, 75, 18.75, 1.50},
	"claude-3-opus":     {15, 75, 18.75, 1.50},
	"claude-sonnet-4":   {3, 15, 3.75, 0.30},
	"claude-3-7-sonnet": {3, 15, 3.75, 0.30},
	"claude-3-5-sonnet": {3, 15, 3.75, 0.30},
	"claude-haiku-4":    {1, 5, 1.25, 0.10},
	"claude-3-5-haiku":  {0.80, 4, 1, 0.08},
	"claude-3-haiku":    {0.25, 1.25, 0.30, 0.03},
	"gpt-5":             {1.25, 10, 1.25, 0.125},
	"gpt-5-mini":        {0.25, 2, 0.25, 0.025},
	"gpt-5-nano":        {0.05, 0.40, 0.05, 0.005},
	"gpt-4.1":           {2, 8, 2, 0.50},
	"gpt-4.1-mini":      {0.40, 1.60, 0.40, 0.10},
	"gpt-4.1-nano":      {0.10, 0.40, 0.10, 0.025},
	"gpt-4o":            {2.50, 10, 2.50, 1.25},
	"gpt-4o-mini":       {0.15, 0.60, 0.15, 0.075},
	"o3":                {2, 8, 2, 0.50},
	"o4-mini":           {1.10, 4.40, 1.10, 0.275},
}

// PriceOf returns the list price of a model family, and false for a model whose price is not
// known (local models, new names); a provider prefix ("openai/", "anthropic.") is ignored, as
// in DefaultContextWindow.
func PriceOf(model string) (Price, bool) {
	best, ok := family(prices, model)
	if !ok {
		return Price{}, false
	}
	return prices[best], true
}
