//! Notation in its forms, and position text with its refusals.

use super::*;

// ------------------------------------------------------------ notation

#[test]
fn notation_is_read_in_its_forms() {
    let text = "phase=play side=w white=K@Aa1,N@Ab1 black=R@Cb2,K@Dd4 wres=U1 bres=- clock=0";
    let cases = [
        ("U@Bc2", "U@Bc2"),
        ("u @ bc2", "U@Bc2"),
        ("Ab1-Bb3", "Ab1-Bb3"),
        ("ab1bb3", "Ab1-Bb3"),
        ("NAb1-Bb3", "Ab1-Bb3"),
        ("Ab1:Cb2", "Ab1xCb2"),
        ("Ab1-Cb2", "Ab1xCb2"),
        ("V4:Ab1", "V4:Ab1"),
        ("v4ab1", "V4:Ab1"),
        ("C3:Ab1xCb2", "C3:Ab1xCb2"),
        ("C3:Ab1-Cb2+", "C3:Ab1xCb2"),
        ("c3:ab1-bb3", "C3:Ab1-Bb3"),
    ];
    for (input, canonical) in cases {
        let mut p = pos(text);
        assert_eq!(play_ok(&mut p, input).notation, canonical, "{input}");
    }
    let e = pos(text).play("e4").unwrap_err();
    assert!(matches!(e, MoveError::Unreadable { .. }));
    assert!(e.to_string().contains("a clone like C3:Ab1-Cc3"), "{e}");
    let e = refusal(text, "QAb1-Bb3");
    assert!(
        e.contains("the piece on Ab1 is your knight, not a queen."),
        "{e}"
    );
    let e = refusal(text, "Ab1-Ab2");
    assert_eq!(
        e,
        "Ab1-Ab2 is not a legal move: your knight on Ab1 cannot reach Ab2; it can move to Aa3, Ac3, Ad2, Bb3, Bd1, Ca1, Cb2 or Cc1."
    );
    let e = refusal(text, "C2:Ab1-Ab2");
    assert!(
        e.contains(
            "a duplicate of your knight on Ab1 cannot reach Ab2; the duplicate can move to Aa3"
        ),
        "{e}"
    );
    let e = refusal(text, "Cb2-Cb3");
    assert!(
        e.contains("Cb2 holds Black's rook, not a piece of yours; yours stand on K Aa1 and N Ab1."),
        "{e}"
    );
    let e = refusal(text, "Bb2-Bb3");
    assert!(e.contains("there is no piece on Bb2"), "{e}");
}

// ------------------------------------------------------------ text

#[test]
fn position_text_round_trips_and_refusals() {
    for text in [
        START,
        "phase=play side=w white=K@Aa1,R@Ab1(C1),R@Bb1 black=R@Ad1,U@Cc3(V2),K@Dd4 wres=N1 bres=U1 clock=0",
        "phase=play side=b white=K@Aa4,N@Ab1(V2) black=R@Ab1,K@Dd4 wres=- bres=- clock=12",
        "phase=play side=w white=K@Bb2(C2),K@Bb3 black=R@Db2,K@Dd4 wres=- bres=R1 clock=1",
        "phase=place side=b white=K@Bb2 black=- wres=Q1R2B2N2U8 bres=K1Q1R2B2N2U8 clock=0",
        "phase=won-b side=w white=K@Bb3 black=R@Bb2,K@Dd4 wres=- bres=R1 clock=0",
    ] {
        assert_eq!(pos(text).to_text(), text);
    }
    // Fields in another order, letters in lower case: read, written canonically.
    let p = pos("clock=0 bres=- wres=- black=k@Dd4 white=k@Aa1 side=w phase=play");
    assert_eq!(
        p.to_text(),
        "phase=play side=w white=K@Aa1 black=K@Dd4 wres=- bres=- clock=0"
    );
    let bad = [
        ("phase=play side=w white=K@Aa1 black=K@Dd4 wres=- bres=-", "clock is missing"),
        ("phase=play side=w white=K@Aa1 black=K@Dd4 wres=- bres=- clock=0 x=1", "no field 'x'"),
        ("phase=play side=w white=K@Aa1,Q@Aa1 black=K@Dd4 wres=- bres=- clock=0", "two active pieces"),
        ("phase=play side=w white=K@Aa1,Q@Ab1(V1),R@Ac1(C2),K@Ac2 black=K@Dd4 wres=- bres=- clock=0", "two warps"),
        ("phase=play side=w white=K@Aa1,Q@Ab1(V7) black=K@Dd4 wres=- bres=- clock=0", "1 to 6"),
        ("phase=play side=w white=K@Aa1 black=K@Dd4 wres=Q2 bres=- clock=0", "at most a queen"),
        ("phase=play side=w white=K@Aa1 black=K@Dd4 wres=R1Q1 bres=- clock=0", "order K Q R B N U"),
        ("phase=play side=w white=Q@Aa1 black=K@Dd4 wres=- bres=- clock=0", "0 royal kings"),
        ("phase=play side=w white=K@Aa1(C1) black=K@Dd4 wres=- bres=- clock=0", "0 royal kings"),
        ("phase=play side=w white=K@Aa1,K@Ab1 black=K@Dd4 wres=- bres=- clock=0", "2 royal kings"),
        ("phase=play side=w white=K@Aa1 black=K@Dd4 wres=K1 bres=- clock=0", "king in reserve"),
        ("phase=play side=w white=K@Aa1 black=K@Ab2 wres=- bres=- clock=0", "Black's king on Ab2 is attacked"),
        ("phase=place side=w white=K@Aa1 black=- wres=- bres=K1 clock=0", "White places first"),
        ("phase=place side=b white=K@Aa1,Q@Bb1 black=- wres=- bres=K1 clock=0", "only kings"),
        ("phase=play side=x white=K@Aa1 black=K@Dd4 wres=- bres=- clock=0", "side is w or b"),
        ("phase=play side=w white=K@Ea1 black=K@Dd4 wres=- bres=- clock=0", "is not a piece"),
        ("", "missing"),
    ];
    for (text, expected) in bad {
        let e = game().position(text, &[]).unwrap_err().to_string();
        assert!(e.contains(expected), "{text}: {e}");
    }
}
