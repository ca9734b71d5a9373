//! "Did you mean": ranking names by edit distance.

/// Edit distance between `a` and `b` in chars, where inserting, deleting or replacing
/// a char, or swapping two neighbours (`gerp` for `grep`), costs one edit.
///
/// ```
/// use toolwright_core::suggest::edit_distance;
/// assert_eq!(edit_distance("read_fiel", "read_file"), 1);
/// assert_eq!(edit_distance("glob", "grep"), 3);
/// ```
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the optimal-string-alignment table: i-2, i-1 and i.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (prev[j - 1] + cost).min(prev[j] + 1).min(cur[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            cur[j] = best;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Up to `max` candidates close to `wanted` (case-insensitive), closest first; ties
/// keep the candidates' order. "Close" is at most a third of the longer name changed
/// (at least one edit), or one name containing the other.
///
/// ```
/// use toolwright_core::suggest::closest;
/// let names = ["read_file", "write_file", "glob", "grep"];
/// assert_eq!(closest("readfile", names, 3), vec!["read_file"]);
/// assert_eq!(closest("gerp", names, 3), vec!["grep"]);
/// assert_eq!(closest("file", names, 3), vec!["read_file", "write_file"]);
/// assert!(closest("deploy", names, 3).is_empty());
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
