// Package semantic learns which terms are related from a store's own text,
// so that a memory and a question sharing no content word ("Melanie took
// up painting last spring" / "What art hobby did she start?") can still
// meet, offline and without a model.
//
// # What it does
//
// Train takes the texts of a namespace's records and returns a Model of
// term vectors:
//
//   - terms are cut as the keyword index cuts them (memindex.EachTerm:
//     folded, then stemmed by stem), without the index's stopwords, one-rune
//     terms and terms without a letter; Terms exposes this cutting;
//   - the vocabulary is the terms seen at least MinCount times, at most
//     MaxVocab of them, most frequent first;
//   - two terms co-occur when they are at most Window terms apart in one
//     text (nearer counts more); the counts become positive pointwise mutual
//     information with the context distribution smoothed by α = 0.75;
//   - a randomized truncated SVD (range finder with power iterations, on the
//     sparse matrix, in pure Go) reduces them to Dim dimensions; a term's
//     vector is its row of U·Σ^0.5, L2-normalised;
//   - the model measures what cosine similarity unrelated terms reach: the
//     quantiles of the similarity of random term pairs (NullSim), and of
//     the Embed vectors of random pairs of its texts (NullTextSim), so
//     callers use a calibrated threshold rather than a guessed one.
//
// Training is deterministic: the same texts (in any order), Config and Seed
// give the same model on one platform, whatever the number of workers.
//
// # Use
//
//	m, err := semantic.Train(ctx, texts, semantic.Config{Workers: 1})
//	if errors.Is(err, semantic.ErrTooSmall) { /* use the other channels */ }
//	exp := m.Expand(memindex.Terms(memindex.QueryTokens(q), 32), 10, m.NullSim(0.99))
//
// Neighbours lists a term's nearest terms; Expand lists the terms related to
// a query as a whole (its terms' neighbours and its centroid's), never the
// query's own terms nor terms too common to point at a record, each with a
// weight in (0, 1) for a keyword query; Embed gives a text a vector (a
// smooth-inverse-frequency weighted average of its terms' vectors) for a
// document-side similarity, to be compared with NullTextSim. Marshal and Unmarshal store a model with its
// training parameters and the Stamp of the corpus it learnt from, so a
// caller can tell when to train again.
//
// # Limits
//
//   - It learns relatedness, not synonymy: terms used in the same contexts
//     are neighbours whatever their relation ("paint" and "easel", "red"
//     and "blue", a person and the people they talk with).
//   - It knows only what the store says. A corpus of a few hundred short
//     records (Train refuses fewer than MinTexts texts or MinVocab terms
//     with ErrTooSmall) gives noisy vectors; terms seen fewer than MinCount
//     times, or only in records added after training, have none.
//   - NullSim samples random pairs of the vocabulary. In a store about few
//     topics many random pairs are related, so its upper quantiles are high
//     and a threshold taken from them is conservative.
//   - A model is a snapshot; it does not follow the store. Training is meant
//     for the background (pass Workers: 1 to leave a core to requests): on
//     generated records of 10 to 40 words it takes about 1.3 CPU-seconds
//     for 6,000 records (12,800 terms), 5 for 50,000 (18,800 terms) and 9
//     for 100,000, with a live heap peaking near 30, 90 and 150 MB (the
//     sparse matrix and its transpose, 6 bytes per stored pair, and a few
//     terms × (Dim+10) dense matrices); the stored model takes
//     about 4·Dim+8 bytes per term. Expand scans the vocabulary once per
//     call (about 1 ms for 19,000 terms of 128 dimensions) and remembers
//     each query term's neighbours.
package semantic
