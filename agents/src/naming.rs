//! Cline's per-definition tool names: `use_subagent_<name>`, made safe for every
//! provider (lowercase, `[^a-z0-9_]+` to `_`, repeats collapsed, edges trimmed), at
//! most 64 characters (longer ones cut, with `_` and a 6-character base-36 FNV-1a
//! hash of the whole name so that cut names stay apart), and `_2`, `_3` for names that
//! still collide, in sorted order, so the same definitions always get the same names.

const PREFIX: &str = "use_subagent_";
const MAX: usize = 64;

/// The tool name for the definition `name`, before collisions are told apart.
pub fn cline_tool_name(name: &str) -> String {
    let mut safe = String::with_capacity(name.len());
    for c in name.to_lowercase().chars() {
        let c = if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' { c } else { '_' };
        if !(c == '_' && safe.ends_with('_')) {
            safe.push(c);
        }
    }
    let safe = safe.trim_matches('_');
    let full = format!("{PREFIX}{safe}");
    if full.len() <= MAX {
        return full;
    }
    let hash = base36(fnv1a(name.as_bytes()) % 36u32.pow(6), 6);
    format!("{}_{hash}", full[..MAX - 7].trim_end_matches('_'))
}

/// The tool names of `names`, in their order: each [`cline_tool_name`], with `_2`,
/// `_3` after the first of names that collide (taken in sorted order of the names).
pub fn cline_tool_names(names: &[&str]) -> Vec<String> {
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|a, b| names[*a].cmp(names[*b]));
    let mut out = vec![String::new(); names.len()];
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    for index in order {
        let base = cline_tool_name(names[index]);
        let mut candidate = base.clone();
        let mut n = 2;
        while taken.contains(&candidate) {
            let suffix = format!("_{n}");
            let keep = base.len().min(MAX - suffix.len());
            candidate = format!("{}{suffix}", &base[..keep]);
            n += 1;
        }
        taken.insert(candidate.clone());
        out[index] = candidate;
    }
    out
}

fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |hash, byte| (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193))
}

fn base36(mut value: u32, width: usize) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = vec![b'0'; width];
    for slot in out.iter_mut().rev() {
        *slot = DIGITS[(value % 36) as usize];
        value /= 36;
    }
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_safe_and_short_and_kept_apart() {
        assert_eq!(cline_tool_name("Code Reviewer!"), "use_subagent_code_reviewer");
        assert_eq!(cline_tool_name("--a..b__c--"), "use_subagent_a_b_c");
        let long = "x".repeat(100);
        let name = cline_tool_name(&long);
        assert_eq!(name.len(), 64, "{name}");
        assert!(name.starts_with("use_subagent_xxx") && name.as_bytes()[57] == b'_', "{name}");
        // Two long names that share their first 51 characters stay apart.
        let other = format!("{}y", "x".repeat(99));
        assert_ne!(cline_tool_name(&other), name);
        // Collisions: by sorted order, whatever the order given; stable.
        let names = cline_tool_names(&["b-x", "B X", "b_x"]);
        assert_eq!(names, ["use_subagent_b_x_2", "use_subagent_b_x", "use_subagent_b_x_3"]);
        assert_eq!(
            cline_tool_names(&["b_x", "B X", "b-x"]),
            ["use_subagent_b_x_3", "use_subagent_b_x", "use_subagent_b_x_2"]
        );
        assert!(
            names
                .iter()
                .all(|n| n.len() <= 64 && n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
        );
    }
}
