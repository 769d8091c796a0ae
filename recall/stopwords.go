package recall

import "sync"

// stopwords are English function words that carry no topic: they are dropped from documents
// and queries alike. The list is the usual small one (articles, pronouns, auxiliaries,
// prepositions, conjunctions, question words) in the apostrophe-free form Tokenize produces.
var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are",
		"as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
		"by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for",
		"from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself",
		"him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
		"just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on",
		"once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same",
		"she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
		"themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
		"under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which",
		"while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
		"yourselves", "also", "ever", "many", "much", "may", "might", "must", "shall", "us", "yet",
		"dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "im", "ive", "id", "ill",
		"youre", "youve", "youd", "hes", "shes", "its", "were", "theyre", "theyve", "weve", "cant",
		"couldnt", "wouldnt", "shouldnt", "wont", "hasnt", "havent", "hadnt", "lets", "thats",
		"whats", "theres", "heres",
	} {
		m[w] = true
	}
	return m
})
