//! "Did you mean": ranking names by edit distance.

/// Levenshtein distance between `a` and `b`, counted in chars.
///
/// ```
/// assert_eq!(toolwright_core::suggest::edit_distance("read_fiel", "read_file"), 2);
/// ```
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = Vec::with_capacity(b.len() + 1);
    for (i, ca) in a.chars().enumerate() {
        cur.clear();
        cur.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Up to `max` candidates close to `wanted` (case-insensitive), closest first; ties
/// keep the candidates' order. "Close" is at most a third of the longer name changed
/// (at least one edit), or one name containing the other.
///
/// ```
/// let names = ["read_file", "write_file", "glob", "grep"];
/// assert_eq!(toolwright_core::suggest::closest("readfile", names, 3), vec!["read_file", "write_file"]);
/// ```
pub fn closest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>, max: usize) -> Vec<&'a str> {
    let wanted = wanted.to_lowercase();
    let mut ranked: Vec<(usize, usize, &str)> = candidates
        .into_iter()
        .enumerate()
        .filter_map(|(i, name)| {
            let lower = name.to_lowercase();
            let distance = edit_distance(&wanted, &lower);
            let limit = (wanted.chars().count().max(lower.chars().count()) / 3).max(1);
            let contains = !wanted.is_empty() && (lower.contains(&wanted) || wanted.contains(&lower));
            (distance <= limit || contains).then_some((distance, i, name))
        })
        .collect();
    ranked.sort();
    ranked.into_iter().take(max).map(|(_, _, name)| name).collect()
}
