// Package words is mnemo's one model of words: what a word is, how it is
// folded and stemmed, which words carry no topic, and the keyword rules
// the classifiers match. Every part of mnemo that reads words reads them
// here: the keyword indexes and their queries, the relevance floor, the
// duplicate check, the learned model's terms, the intent classifiers,
// prompt statistics, procedure steps and the probes of the loops.
//
//   - A word (Spans, Each, Split) is a run of letters, numbers and marks
//     of any script, where a mark continues a word but does not start
//     one; everything else separates. Words longer than MaxRunes are
//     skipped. Compounds joins words across one hyphen or apostrophe for
//     the readers that want "jean-luc" or "don't" whole.
//   - Folding (Fold, FoldRune) lower-cases a word and removes its
//     diacritics: "Café" → "cafe", «Ёжик» → «ежик», й → и, ї → і.
//   - Stemming (Stem, StemLen, StemBytes) strips English, Russian and
//     Ukrainian endings from a folded word: "deployments" → "deploy".
//   - Stopwords and query words (IsStopword, IsFunctionWord) are kept per
//     language: English, Russian, Ukrainian.
//   - Languages (Script) are told by the letters of a text: Russian or
//     Ukrainian by the letters only one of them writes, Cyrillic or not.
//   - Rules (RuleWords, Compile, NewRules) match keyword patterns such as
//     "how to", "fix*", "^как", "*ться" against a text's words.
//
// Two splits differ from the word model because stored data depends on
// them: HashWords is the split the hash embedder's vectors are made from
// (version 1), and the keyword index's terms are cut as SQLite's FTS5
// tokenizer cuts them (memindex.EachTerm), so that the in-memory index
// and the FTS5 table agree. Both are tested against their stored form.
package words
