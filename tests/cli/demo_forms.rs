//! The demo plants one pathway per form, and the Forms view names it for
//! the form that has it.

use receipt_review::demo::{DemoOptions, generate};
use receipt_review::forms::{Pathway, Period, compute};
use receipt_review::model::Settings;
use receipt_review::reading;
use receipt_review::storage::{Access, open_database};

const NOW: i64 = 1_795_947_330_123; // 2026-11-29T10:15:30.123Z

fn pathways(receipts: usize, seed: u64) -> Vec<(String, Vec<Pathway>)> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.db");
    let opts = DemoOptions {
        receipts,
        seed,
        now_ms: NOW,
    };
    generate(&path.as_path().into(), &opts).unwrap();
    let db = open_database(&path, Access::ReadOnly).unwrap();
    let snap = reading::read(&*db, Settings::new(NOW), &mut |_| {}).unwrap();
    compute(&snap, Period::All)
        .rows
        .into_iter()
        .map(|r| (r.scope, r.pathways.iter().map(|f| f.pathway).collect()))
        .collect()
}

#[test]
fn each_form_of_the_demo_is_told_its_planted_pathway_first() {
    use Pathway::*;
    for seed in [7, 11] {
        let forms = pathways(8_000, seed);
        let of = |scope: &str| -> &[Pathway] { &forms.iter().find(|(s, _)| s == scope).unwrap().1 };
        let first = |scope: &str| of(scope)[0];
        assert_eq!(first("corp.example/contact"), TwoHandlers, "{forms:?}");
        assert_eq!(first("lp/ai-web"), NewKeyPerClick, "{forms:?}");
        // Most of its receipts come without a key, and it is reloaded.
        assert_eq!(&of("lp/recovery")[..2], [NoKey, Reload], "{forms:?}");
        assert_eq!(first("shop.example/support"), EditedResend, "{forms:?}");
        assert!(of("corp.example/contact").contains(&Bots), "{forms:?}");
        assert!(of("shop.example/support").contains(&RetriesAbsorbed));
    }
}
