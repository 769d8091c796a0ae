// Package recall is layer 3c: it picks the memories worth showing the model for one user turn.
//
// The pieces, in the order a turn uses them:
//
//   - Manifest renders the memory dir as one line per file, newest first, from the first
//     HeaderLines lines of each file only (LoadHeaders), at most MaxManifestEntries lines.
//   - Ranker is the offline lexical ranker: an Index (BM25F over name, description and body,
//     with proximity, passage, coverage, feedback, time and second-round refinements; see
//     Params) kept warm over
//     a Source. Refresh re-reads only files whose mtime or size changed and drops vanished
//     ones; Update re-reads files a caller knows it changed. The index is never rebuilt per
//     query, nor after a change: only the changed memories' postings and length
//     normalisations are computed again, and the rankings are bit for bit those of a full
//     rebuild.
//   - A store ranker may save its index (RankerOptions.Cache, CachePath: in the user's cache
//     directory, never among the store's files): a base file mapped into memory, whose
//     posting lists and texts are used where they lie, and a journal of the memories strata
//     changed since. A new process opens it in milliseconds and reads only the files whose
//     stamp (size, mtime, inode) differs from the one saved with each memory; a base that is
//     missing, damaged or written by another version is rebuilt from the files.
//   - Tokenize turns text into terms: NFKC and case folding, English stopwords removed and
//     words stemmed (Porter, plus common irregular forms), CJK text as character bigrams and
//     unigrams, so Chinese and Japanese memories are found by Chinese and Japanese queries.
//   - Selector picks the final files from the ranker's shortlist. Lexical (the default) keeps
//     the ranker's order; a model-based selector can replace it without touching the rest.
//   - Recaller runs a turn: refresh, rank, filter (already surfaced, already read, reference
//     docs of tools in use unless they carry warnings), select, cut each file to its budget
//     with a visible note, add an age note to memories older than a day, and charge the
//     session budget, over several stores ranked as one list (the project's first). Refresh
//     and Search are the same ranking without a session, for a search. Session holds what was
//     surfaced and spent; Reset starts over after a compaction.
//   - Stats records per memory how often and when it was recalled, in a sidecar file
//     (.recall-stats.json in the memory dir), never in the memory files themselves. A recall
//     appends one line to a log beside it (.recall-stats.log), folded into the sidecar once
//     it passes StatsLogFold bytes, so recording a recall does not rewrite every memory's
//     entry.
//
// Guarantees: recall never writes a memory file. Searches are deterministic (ties broken by
// file name), and every index of the same memories ranks alike, however many workers built it
// and in whatever order (no tie is broken by a term id). Nothing is
// cut silently: every truncation carries a note naming the limit, and files left out by a
// budget are reported in the turn's result. The stats sidecar is written atomically; a
// corrupt one is reported and replaced, never fatal. The recall log is appended and synced
// under the stats lock: a crash loses at most the recall being appended (its torn line is
// skipped, then cut off), and the sidecar records how much of the log it holds, so a crash
// during a fold counts nothing twice. Searching several stores (SearchAll) gives exactly the
// list that ranking each store in full and merging (Merge) gives. A saved index is never
// trusted over the files: each memory in it is used only while its file keeps the stamp saved
// with it, the base is replaced by a rename and checked by a CRC, and a journal record torn by
// a crash ends the replay, so a crash at any point costs re-reads, never a wrong result. An
// index opened from its cache ranks as the index of the process that saved it did.
package recall
