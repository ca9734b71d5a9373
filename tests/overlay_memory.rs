//! 100,000 register/unregister cycles leave the heap where it was.
#![allow(missing_docs)]

mod common;

use common::runtime_tool::Runtime;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

#[test]
fn register_unregister_cycles_do_not_grow_memory() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let registry = toolwright::registry().unwrap();
    let cycle = |i: usize| {
        let name = format!("tool_{}", i % 7);
        registry.register_owned("owner", Runtime::shared(name.clone())).unwrap();
        let mcp = registry.register_mcp("server", &name, Runtime::shared).unwrap();
        assert!(registry.contains(&mcp));
        if i.is_multiple_of(2) {
            assert!(registry.unregister(&name) && registry.unregister(&mcp));
        } else {
            assert_eq!(registry.clear_owner("owner") + registry.clear_owner("server"), 2);
        }
    };
    for i in 0..1_000 {
        cycle(i);
    }
    let warm = dhat::HeapStats::get().curr_bytes;
    for i in 0..100_000 {
        cycle(i);
    }
    let after = dhat::HeapStats::get().curr_bytes;
    assert_eq!(registry.overlay_stats(), toolwright::OverlayStats { tools: 0, routes: 0, owners: 0, mcp_names: 0 });
    assert!(after <= warm, "live heap grew from {warm} to {after} bytes over 100,000 cycles");
}
