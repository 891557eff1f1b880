/*
 * auto: per call, the row the cost model expects to finish first, and
 * never for long a choice that wrong predictions make worse.
 *
 * Idea.  Every row with an estimate (pat_alg_row.estimate: its header's
 * cost formula under the byte model; binomial's tree and clairvoyant's
 * plan walked under the arrivals) that can serve the call is a candidate.
 * Two choices per call, from inputs every rank has alike (the call, the
 * cost model, the PAT layer's prediction):
 *   - PAT-aware: the least estimate under the predicted arrivals;
 *   - PAT-blind: the least estimate under balanced arrivals among the
 *     rows that do not plan with arrival times;
 * binomial's estimate counting PAT_AUTO_TIE less in both (see "Ties").
 * auto runs the aware one unless recent calls say the predictions did
 * not pay.  Each call whose arrivals the PAT layer has since exchanged is
 * scored: both choices' estimates under what really arrived (the aware
 * clairvoyant's plan, built for the prediction, replayed under the real
 * arrivals: the schedule's pat_replay).  While the aware choices' total
 * over the last PAT_AUTO_WINDOW scored calls (PAT_AUTO_WINDOW / E, at
 * least 1, when only every E-th call is exchanged) is not below the blind
 * ones' (a wrong prediction can make the clairvoyant tree slower than a
 * binomial one), auto runs the blind choice; it switches back once the
 * last max(that window, PAT_AUTO_EVIDENCE) scores show the aware choices
 * ahead beyond their noise (a one-sided t bound: decide_mode).  An aware
 * choice counts as ahead only by more than the machine's scatter: one
 * standard deviation of the realized over estimated times of the rows
 * that do not plan (add_noise; 0 in a deterministic simulation).
 * PAT_REDUCE_VERBOSE = 1 says each switch
 * (rank 0); = 2 names every call's choice; = 3 adds, per call, what
 * the decision read (rank 0: pat_auto_describe).  Scores come from exchanged
 * data only, so every rank switches at the same call.
 *
 * Model.  The PAT layer's (PAT_REDUCE_ROUND_COST, PAT_REDUCE_MODEL, or
 * fitted from measurements), else the configured one (the CURIE-like
 * reference while nothing is measured): the estimates compare message
 * sizes, so a latency-only placeholder would not do.
 *
 * Trial.  A planning row that becomes the choice runs one call on trial;
 * until that call's realized time comes (the exchange's lag and
 * interval later), the blind choice runs, and once it came the row is
 * trusted while it stays the aware choice (its correction now counts
 * the trial; a spell of blind choices from the scores keeps the trust).
 * A plan the network runs slower than modeled so costs one call, not
 * every call until the first realized time (SMPI, P = 64, 8 B balanced,
 * exchanging every 8th call: auto ran the plan for 8 calls at 1.5x
 * binomial's time; with the trial, binomial's median).  A trial
 * starts only on a call whose stamps are exchanged (only those are ever
 * measured); one whose realized time does not come (its call was not
 * scored, or the pending ring moved on) is repeated.  With an exchange
 * interval longer than the ring holds, no realized time comes back and
 * there is no trial.  Nor is there one for a plan that risks more than it
 * stands to gain (risky): one that would lose more on the blind choice,
 * were the arrivals to come balanced, than it gains under the prediction,
 * until the observed calls show the predictions right (PAT_AUTO_EVIDENCE
 * scores ahead): a prediction read off calls that came apart for a reason
 * that then went away (SMPI, P = 64, 4 KiB: patbench's warm-up calls
 * after pipeline's came as a staircase, 3.7 us a rank) planned a chain
 * that took 0.23 ms on the first balanced call, radixk 0.021; the first
 * 16 calls' median 1.24x radixk's, now 1.05x (16 KiB: 1.14x, now
 * 1.03x; unit_auto risky_plan_waits_for_evidence).
 *
 * Cost per call.  The estimates: O(P) each for the bandwidth rows and
 * binomial (native and localredirect are not weighed while binomial is,
 * but localredirect under arrivals: pat_alg_row.never_below, absorbs;
 * O(P + F log F) for F forwarded late ranks); under arrivals, a row
 * that arrivals only delay is not weighed where its balanced estimate,
 * the blind choice's, cannot win: pat_alg_row.arrivals_delay), the
 * clairvoyant plan (O(P log P) atomic;
 * segmented: its bounded search, clairvoyant.c) under the prediction,
 * built as the schedule the call runs when it wins; when scoring, the
 * plan's replay (replay.c, O(transfers)) under the real arrivals.  Both
 * choices are kept while the inputs (count, root, op properties, model
 * and, for the aware one, the prediction and the corrections, which each
 * realized time moves) repeat, and then cost nothing;
 * the PAT layer rounds predictions to an eighth of a round
 * (pat_state_predict), so a prediction that moved by less is the same
 * one.  patautospeed: at P = 128, 64 KiB, 1.3% of the modeled
 * reduction balanced, 1.4% with a rank late (the plan's building aside:
 * clairvoyant pays it too; 2.0-2.1% and 1.6% when every row was weighed
 * under arrivals).  Blind over a whole window of scored
 * calls since the last switch, the aware choice (the plan) serves only
 * to score, so it is made on every PAT_AUTO_SKIM-th call only (the
 * others are not scored, but for calls back to back: "Back to back"),
 * and at once when the predicted arrivals spread
 * twice as wide as at the last plan (a late rank appeared) or the scores
 * switch auto back (the plan trusted before the spell runs at once): on
 * a real node, 8 ranks on 2 cores, 512 KiB, planning on every call made
 * auto's binomial calls 1.3-1.5x the fixed row's.  Memory: the
 * predictions and plans of the calls not yet scored (pending_slots: the
 * exchange's lag + interval + 1 patterns of P doubles, and references to
 * their plans).  Quiet calls (below pat_auto_decide's helper "decide"): a
 * call that is not exchanged, after two that decided alike from the same
 * inputs and state with nothing heard since, is served their row without
 * deciding; where the PAT layer also has nothing to do at it
 * (pat_state_quiet: no exchange now, none pending; one that samples
 * for the next call's exchange times its run and is quiet too), the
 * dispatcher asks auto before arriving or predicting (auto_standing,
 * dispatch.c's standing_pick), and such a call costs what its row does.
 * On a real node, 8 ranks on 2 cores, balanced, 1000 calls, 8 B: 87% of
 * the calls so (the others exchanged, sampled, waited for the exchange's
 * rounds or decided after an observation; the sampling call is quiet
 * since).
 *
 * Candidates.  PAT_REDUCE_ALGORITHM as a list names them (a,b,c) or the
 * rows left out (^a,b); when none of them can serve a call, every row
 * is a candidate.  Only rows that serve the call are weighed
 * (pat_alg_unmet), so a non-commutative op gets an order-preserving row.
 *
 * Shared cores.  auto needs ranks with cores of their own
 * (PAT_NEEDS_OWN_CORES): where more of a communicator's ranks sit on a
 * node than CPUs they may run on (src/core/cores.c; PAT_REDUCE_CORES),
 * binomial serves its calls and no PAT layer starts (dispatch.c).  There
 * the byte model misranks the rows (a step in which every rank works costs
 * as many steps as ranks share a core, and each message waits for its
 * receiver to be scheduled), and what every rank does per call (stamps,
 * their exchange, a decision, a plan) costs them all at once.  Measured on
 * this project's 2-core node, 8 ranks, 40 calls per size after 5 (patbench
 * --sizes 8,4K,64K,512K --pattern single --imbalance 0,1ms), auto over
 * binomial by the median, balanced:
 *   - every row weighed: 1.4-2x at 512 KiB (its first 21 calls measured
 *     pipeline, ring, butterfly and radix-k, which ran 1.5-3x binomial's
 *     time where the model put them at 0.6-0.8x);
 *   - binomial, localredirect and clairvoyant only: 1.05-1.55x (a plan on
 *     every fourth call cost 55 us on each rank, four ranks to a core);
 *   - binomial serving, the PAT layer on: 1.02-1.5x at 8 B and 4 KiB (the
 *     exchange at its automatic pace);
 *   - binomial serving, no PAT layer (this): 0.96-1.05x.
 * With the last rank 1 ms late every variant ran binomial's time (the plan,
 * 1.12-1.18x faster there at 512 KiB, never won its scores against the
 * machine's scatter), so no gain is given up here.
 *
 * Realized times.  The PAT layer also exchanges how long every rank
 * took in the previous exchanged call (its exit less its stamp), so each
 * such call's realized time (latest exit less earliest arrival) is known
 * alike on every rank one exchange after its arrivals.  The row that ran it
 * gets realized over its estimate under the real arrivals into a running
 * geometric mean (pat_auto_realized): for the rows that do not plan with
 * arrivals it is the machine's factor (what every row pays beyond its model:
 * the stamp exchange, skew), and it ranks no row above another (with a
 * correction per row they took turns, each losing its lead to the next); a
 * planning row's ratio over that factor multiplies its estimates, bounds and
 * scores from then on: a plan the network runs slower than modeled loses its
 * lead after a few calls, and the correction fades while the row does not run.
 * A row that the fade brought back (away for longer than a trial waits) and
 * that ran slower again than its faded correction said (by 10% or the
 * machine's scatter, the larger) forgets half as fast from then on, down to a
 * sixteenth; one that ran as it said, at the full rate again, and so do
 * all once the machine changed (PHASE_DRIFTED) (a real node, 8 ranks on
 * 2 cores, 512 KiB balanced: the plan ran 1.3-1.8x its corrected estimate
 * and came back every 20-40 scored calls; unit_auto
 * slow_plan_comes_back_less_often).  A planning row's first realized time
 * in a size class counts only if the row ran slower than its correction
 * says: faster, it passes the row's trial and credits it nothing (the
 * first calls' arrivals can spread over milliseconds, where the model
 * means little; unit_auto planning_row_on_trial).
 *
 * Measured rows.  The model ranks the rows for a machine like the one it
 * was fitted on; on another it can be wrong by several times (this
 * project's 2-core node, 8 ranks oversubscribed, 512 KiB: the model put
 * pipeline first, it ran 2-3x binomial's time; auto ran it every call).
 * So each size class's first exchanged calls set the model's pick (the
 * blind choice) against binomial, the row every MPI library has: each
 * runs PAT_AUTO_SAMPLES measured calls (plus one not counted: the first
 * use pays what the MPI library sets up), alternately, on exchanged calls
 * where auto would run a row that does not plan with arrivals (a trial
 * or a trusted plan keeps its call).  If their median realized times
 * stand within PAT_AUTO_AGREE of the model's ratio, and the pick, if the
 * model puts it ahead of binomial, measured clearly ahead (clearly_faster:
 * its slowest call faster than binomial's fastest), the model ranks right
 * and stays in force (SMPI: it does; the probe costs binomial's time on
 * 4 calls per class).  Otherwise every row the blind choice weighs (up to
 * PAT_AUTO_WIDE times the least estimate) is measured in turn, a row
 * whose best call took over PAT_AUTO_BEHIND times the leader's median,
 * or that can no longer win over binomial (cannot_win: after
 * PAT_AUTO_SAMPLES calls not clearly faster, or, while the calls do not
 * come calm, clearly slower), is measured no more, and a probe whose
 * pick can no longer win ends at once (while the measuring goes on, calls
 * that measure nothing run the row measured fastest so far: interim),
 * and each row's
 * median time over its estimate,
 * relative to binomial's, becomes its correction: the estimates then rank
 * as the rows ran, but a row ahead of binomial by its median and not
 * clearly ranks level with it, and binomial wins the tie (a noisy node
 * moves a median of three calls by 20-40%: unit_auto
 * noisy_ties_go_to_binomial); and a corrected row is weighed under
 * arrivals at its balanced estimate plus the spread (row_estimate: the
 * model's response to arrivals is not trusted for a row it misjudged),
 * its correction on the balanced estimate alone (weigh: unit_auto
 * faster_rows_gain_no_spread).
 * Times are compared, not ratios taken as they came: the PAT layer
 * refits the model during the first calls.  Calm calls (arrivals spread
 * over under PAT_AUTO_CALM_SPREAD of the time) are what counts: a call
 * whose ranks came apart measures how long the rows waited, and the row
 * that waits most is not the slowest (SMPI, P = 64, 64 KiB, a benchmark's
 * warm-up calls back to back across rows, where the root comes last:
 * radixk's such call took 7.6x its balanced time, binomial's 2x, so
 * radixk's slowest call was slower than binomial's fastest, the probe
 * did not find it ahead, every row was measured, and the first 16 calls
 * took 1.24x radixk's median; 1.02x now).  Once a measured call came
 * calm, and at least half of those since (calm_seen), the measuring
 * counts calm calls (binomial's that came
 * apart among them, at their balanced equivalent: its estimate under
 * arrivals is the model's walk of its tree, so realized over it, times
 * its balanced estimate, is what the call would have taken balanced;
 * measured again instead, such a warm-up call cost a call more of the
 * slowest row: SMPI, P = 64, 1 MiB cold, binomial 5.1 ms where radixk
 * takes 1.2, the first 16 calls' mean 1.82x radixk's, now 1.60x; these
 * equivalents alone do not make calm calls count: reads_calm), and a row's
 * figures (median, fastest, slowest: the verdict, the drop, interim) read its
 * calm calls if it has one (row_ring); where none came, every call
 * counts, PAT_AUTO_SAMPLES a row, each at its balanced equivalent: its
 * time less what its arrivals added by the model (arrivals_delay: the
 * wait for the last rank, for the rows that arrivals only delay).  As
 * they came (and twice as many), the calls weighed each row's wait with
 * it: SMPI, P = 64, 4 KiB, calls after patbench's barriers, the last rank
 * 18 us late on each, radixk measured 0.78x binomial's time against the
 * model's 0.65x, the probe failed, every row was measured, and the first
 * 16 calls took 1.43x radixk's median (now 1.27x: the probe agrees at
 * call 13; unit_auto spread_calls_measure_no_row).
 * Settled, the chosen row's
 * ratios are watched: once PAT_AUTO_SAMPLES calm calls in
 * a row are off the median of its first ones by over PAT_AUTO_DRIFT
 * (another job, another placement), every row is measured again.
 * Everything is decided from exchanged stamps at the same calls, so alike
 * on every rank.  PAT_REDUCE_VERBOSE = 1 prints each outcome.
 *
 * Pace.  Stamps exchanged that no decision uses are cost only (on a
 * real node, 8 ranks on 2 cores, 8 B balanced, auto with binomial its
 * only candidate took 1.26-1.29x binomial's time at the automatic
 * interval, 1.13-1.2x with none).  auto sets the PAT layer's pace
 * (pat_state_pace) per size class, as it learns, from exchanged data, so
 * at the same call on every rank (one pace for all: a 64 KiB call in 100
 * back to back, exchanged only where the 4 B calls' pace (every 1024th)
 * fell on it, was scored once in its first 400 calls and learned
 * nothing): settled and using no prediction (blind, or the aware choice is
 * the blind one), the automatic interval doubles every PAT_AUTO_QUIET
 * observed calls, up to every PAT_EXCHANGE_MAX_EVERY-th call (with 8,
 * a small message's first 450 calls exchanged every 8th to 32nd call, the
 * calls around each exchange 1.2-5x binomial's: a real node, 8 ranks on 2
 * cores, 8 B balanced, auto 1.10x binomial's median over 1000 calls;
 * with 2, 1.08x, the pace at 64 by call 100), and past it, up to every
 * PAT_AUTO_MAX_APART-th, while that many calls take at most
 * PAT_AUTO_REACT by the periods of the last observed calls (their root's
 * exit-to-exit times, the work between the calls included;
 * longest_apart), so that a change of arrivals is seen within 64 calls or
 * PAT_AUTO_REACT, whichever is longer (on that node an exchanged call and
 * the one completing it took 2-6x binomial's time, so every 64th call
 * cost 3-10% of auto's mean; bounded by the calls' realized times alone,
 * which leave out the time between calls, the pace stretched to every
 * 256th call there, exchanges seconds apart, and auto took 1.009-1.019x
 * binomial by the median and 0.96-1.07x by the mean at 8 B, against
 * 1.015-1.050 and 1.07-1.14; by the periods, 16-64 ms between a row's
 * calls in patbench there, it stays at every 64th), or, while the calls
 * come back to back (see "Back to back"), up to every
 * PAT_AUTO_MAX_APART-th, and past it, up to every
 * PAT_EXCHANGE_MAX_PACED-th, while that many calls take at most
 * PAT_AUTO_REACT by the periods of the last observed calls back to back
 * and by the wall time a call between the observed calls (longest_b2b:
 * there an exchange costs the root hundreds of calls;
 * unit_auto pace_stretches_back_to_back); it is back to the automatic
 * interval once a plan runs or the rows are measured (back to back too);
 * while rows are measured every call exchanges up to P = 128 (the
 * measuring then ends in a few dozen calls: it took 150 at the small
 * messages' interval; back to back
 * a row's runs need every call exchanged), within the measuring's budget
 * (PAT_AUTO_SPEND calls a row, twice that back to back);
 * and the next call exchanges at once after a trial (its realized time
 * comes with the next exchange), after a score, blind, that showed the
 * aware choice ahead (the evidence for switching back comes a call later,
 * not an interval later), and after a call apart while back to back and
 * stretched past PAT_EXCHANGE_MAX_EVERY, once for each.  A look: stretched
 * where the automatic interval is every call (messages that are not
 * small), an observed call whose arrivals the prediction missed on some
 * rank by over PAT_AUTO_CALM_SPREAD of the blind choice's balanced
 * estimate (prediction_missed) asks for each of the next PAT_AUTO_LOOK
 * calls (auto.h), and so does every missed call among them, while the
 * stretch stays (the sizes that take the last stretch set keep it:
 * mpi_pat_mixed_p4, whose 8 B calls take auto's stretch and whose 64 KiB
 * calls come spread on a loaded node).  A stretched interval that is even
 * sees one phase of a flip only, so its cycle was never found: SMPI,
 * P = 64, 1 MiB, 12 calls of the fast drift and then 64 of the flip (the
 * last rank 1 ms late, then the first), auto ran radixk throughout (2.203
 * ms by the median), and with the look it finds the cycle and runs the plan for
 * each call's late rank (1.753 ms; unit_auto
 * look_after_a_missed_prediction).  The look's calls tell the PAT layer's
 * cycle predictor; they are scored (and so move the mode) only once it
 * reports a cycle: scored as they came, they also switched the mode where
 * the arrivals do not cycle (the steady scene alone at 1 MiB: plans on
 * trial, 1.025x radixk's median; unit_auto look_scores_wait_for_a_cycle).
 * On two ranks (arrivals_matter) the pace goes to its longest at once
 * and there are no looks: a late rank there costs every row its delay,
 * so the doubling's early exchanges, which exist to see a late rank soon,
 * would buy nothing (a real node, 2 ranks with a core each, 8 B
 * balanced, 2000 calls: 4 exchanged where 41 were, and auto's 95th
 * percentile 1.01-1.05x binomial's where it was 1.08-1.50x, its median
 * and mean as before within the noise; unit_auto two_ranks_pace_at_once).
 * A set PAT_REDUCE_EXCHANGE_INTERVAL is kept as set.  A late rank that
 * appears during a long quiet spell is seen at the next exchange, up to
 * 64 calls or PAT_AUTO_REACT later, whichever is longer, at the calls'
 * pace before (back to back: PAT_AUTO_MAX_APART calls or
 * PAT_AUTO_REACT).
 *
 * Ties.  A row ranks ahead of binomial only where its estimate is below
 * binomial's by more than PAT_AUTO_TIE (least_of): a lead of a fraction of
 * a percent is inside the model's error, and binomial's tree is the one
 * walked under arrivals whatever the probe found (the others, unprobed,
 * are weighed at their balanced estimate plus the spread).  SMPI, P = 64,
 * 8 B: radixk's estimate was 0.1% below binomial's, so it was the blind
 * choice, and ran 1.004x binomial's median balanced and 1.009x under
 * gamma arrivals (now 1.000 both).  A measured correction counts the
 * same way (binomial wins the ties there too).
 *
 * Back to back.  Where calls follow each other with no work between
 * (OSU's osu_reduce, IMB's Reduce), the ranks that are not root run
 * calls ahead of the root (their sends complete at once), so a call's
 * arrivals say the root is late and its realized time (latest exit less
 * earliest arrival) is how deep that pipeline is: neither says anything
 * of the rows.  On a real node, 8 ranks on 2 cores, 4 B, auto took 2-14x
 * binomial's time there: the root's lateness made the plans look ahead,
 * so it switched predictions on and off every few hundred calls, and the
 * rows' realized times made ring look 0.38x its model, so it ran ring on
 * up to 2690 of 6400 calls.  An observed call whose ranks were idle less
 * than PAT_AUTO_IDLE before it (their median, pat_state_idle_nth: local
 * clocks, so no skew between ranks) is back to back: its score says the
 * predictions did not pay, its realized time is not used, and, settled
 * (or while the measuring waits), the pace stretches as if no prediction
 * were used.  Calls with work
 * between them, or barriers, are not (37-81 us idle on that node, 0.1-0.6
 * us back to back).  Rows are measured there by their runs instead: a
 * run is a row's consecutive calls from one that came apart, and after
 * its k-th call back to back its sample is its time per call so far: the
 * first call's realized time plus the root's k intervals (from its exit
 * of the call before to its exit of this one: its idle time plus the
 * time it took, pat_state_intervals_nth, exchanged with the realized
 * times), over k + 1, over the row's balanced estimate (run_sample).
 * That is what a loop of the row's calls costs per call, as a benchmark
 * of calls back to back times it.  While the calls come back to back the
 * row being measured runs consecutive calls until its samples came (the
 * calls in flight are not counted: measure_row), and the others run
 * binomial, if the list allows it (interim); the measuring may spend
 * twice its budget there, counted apart from the budget of calls apart
 * (a run must wait for a call apart), and a probe without both figures
 * then waits (binomial running, the pace as if settled: measuring_waits)
 * until the calls come apart.  A spell's samples are of one kind
 * (sample_kind).  By the calls back to back alone (the root's interval)
 * or by both those and the calls apart as they came, a real node (8
 * ranks on 2 cores, two calls per iteration, 64 KiB) settled on
 * pipeline, radixk or butterfly in 3 of 26 runs, each 1.7-2.2x
 * binomial's time; by runs, on binomial in 11 of 12 (one on butterfly, 1.63x).
 * Before, the measuring waited for PAT_AUTO_SAMPLES calls apart in a row, and
 * binomial ran meanwhile: with two calls per iteration, for ever (SMPI,
 * P = 64, 64 KiB, two calls per iteration: auto 0.271 ms, radixk 0.091;
 * now 0.093; bursts of 10: 0.271, now 0.094 = radixk's; unit_auto
 * back_to_back_calls_measure_runs).  Blind, the calls after it make
 * no aware choice (skimmed): its score would count against it whatever
 * it was, and the root's lateness (the pipeline's depth) changes at
 * every exchange, so it could cost a plan at any exchanged call, on
 * every rank (that node, 4 B calls with a 64 KiB one every 100, 40400
 * calls: 6-40 segmented plans a rank; 3-4 since, all before the calls
 * were seen back to back; perf probes on cached_plan; unit_auto
 * back_to_back_plans_nothing).  Such a skimmed call is still scored if
 * it came back to back (against the predictions), not if it came apart.
 * The first calls apart again are skimmed too, until PAT_AUTO_SAMPLES
 * calls apart were observed (each a lag after its exchange), so the
 * evidence for the predictions starts that much later.
 *
 * Dynamic rows.  native and localredirect have no schedule; their
 * estimates are formulas (native.c, localredirect.c) that never beat
 * binomial's balanced, so there they win only from a list without it.
 * Under arrivals localredirect's tree protocol (a commutative op, small
 * messages) is walked with its give-ups (pat_alg_row.absorbs): a rank
 * late by many rounds costs it two rounds after its arrival, so it is
 * weighed among the aware choices (at a tie with clairvoyant's plan it
 * wins: least_of weighs it in a pass before the plans', and the plan is
 * then not made).
 *
 * Absorbing rows.  A row that absorbs arrivals without a prediction
 * (localredirect, in the blind choice's place: binomial's at small
 * messages, radixk's or butterfly's from a few KiB, where they pay a late
 * rank's whole delay and its tree gives the rank up; absorber) can beat
 * the blind choice where
 * the predictions do not see the late ranks in time: at 8 B the stamps
 * are exchanged every 8th call or less often, so a new pattern is seen
 * about 11 calls late (SMPI, P = 64, every odd rank late right after a
 * spell of one rank late: the stale plan took 1.08x binomial's time;
 * localredirect takes it as it comes: 1.00x).  Each observed call
 * scores what the absorbing row would have gained over the blind
 * choice under its real arrivals, both weighed by their corrections and
 * the absorbing row by how much slower than modeled it ran here over
 * the blind choice (realized over estimated times, running means); the
 * running mean of those gains (weight PAT_AUTO_ABSORB_WEIGHT) above
 * PAT_AUTO_ABSORB_ON and the machine's scatter makes the absorbing row
 * run the blind choice's calls (settled, not back to back: there the
 * arrivals are the call before's skew), below PAT_AUTO_ABSORB_OFF gives
 * them back; the scores of the aware choices are then taken against it.
 * Its measured slowness fades while it rests (PAT_AUTO_ABSORB_FADE), so
 * it is tried again now and then.  SMPI, P = 64, 8 B, the table's
 * patterns one after the other (16 calls each): 4 random ranks late
 * 0.84x binomial's time, gamma arrivals 0.91x, every odd rank late
 * after one late 1.00x (1.08x before).  An absorbing row that costs the
 * blind choice's calls nothing balanced takes them without waiting for
 * gains (absorbs): its balanced estimate within PAT_AUTO_TIE of the
 * blind choice's (localredirect's tree is binomial's walk, so where
 * binomial is the blind choice), weighed by how much slower than modeled
 * it ran here over the blind choice on calm calls, where it absorbs at
 * all (the rank before the root late by PAT_AUTO_PROBE_ROUNDS rounds:
 * its estimate below the blind choice's; balanced_ratio), until the
 * running mean of its gains falls below -PAT_AUTO_TIE; from then on only
 * its gains give it the calls, as above (absorb_lost).  There the gains
 * came too late: after a long balanced spell the pace is every 64th
 * call, so a late rank was seen up to 64 calls after it appeared (SMPI,
 * P = 64, 8 B, 34 balanced calls and then the last rank late: binomial
 * for all 30 calls of the pattern, 1.48x localredirect's time).  On a
 * machine where it runs slower than modeled, its first measured calls
 * turn it off (unit_auto measuring_runs_the_fastest_measured).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "auto/auto.h"
#include "clairvoyant/clairvoyant.h"
#include "pat/pat_layer.h"

#define PAT_AUTO_WINDOW 8
/* blind, the scores that must show the aware choices ahead (at least
 * this many, beyond a one-sided t bound at this confidence) before auto
 * takes them again (see decide_mode) */
#define PAT_AUTO_EVIDENCE 2
#define PAT_AUTO_CONFIDENCE 0.9
/* blind and settled, the observed calls after which the exchange's
 * interval doubles (see "Pace") */
#define PAT_AUTO_QUIET 2
/* the realized times whose scatter sets the margin a plan must win by
 * (see add_noise), and how many it takes before there is one */
#define PAT_AUTO_NOISE 8
#define PAT_AUTO_NOISE_MIN 3
/* a scatter below this share is none: one score ahead is evidence (a
 * deterministic simulation; see decide_mode) */
#define PAT_AUTO_NOISELESS 0.01
_Static_assert(PAT_AUTO_EVIDENCE >= 2 && PAT_AUTO_EVIDENCE <= PAT_AUTO_WINDOW,
               "a t bound needs two scores, and the window must hold them");
/* blind over a whole window since the last switch: the aware choice (a
 * plan) is made on every PAT_AUTO_SKIM-th call only, the one it is scored
 * on (see "Cost per call") */
#define PAT_AUTO_SKIM 4
/* decisions of exchanged calls kept at once: the longest lag (64) + 3 */
#define PAT_AUTO_PENDING (64 + 3)
/* a costly estimate (a plan) is skipped when its row's bound is within
 * this share of the best other estimate: it could win by less */
#define PAT_AUTO_SKIP 0.02
/* another row's estimate must be below binomial's by more than this
 * share to rank ahead of it (see "Ties") */
#define PAT_AUTO_TIE 0.02

/* Realized over estimated time, per row: the weight of a new ratio in
 * its running (geometric) mean, and the range a ratio is clamped to. */
#define PAT_AUTO_CORR_WEIGHT 0.25
#define PAT_AUTO_CORR_MIN 0.25
#define PAT_AUTO_CORR_MAX 4.0
/* ... and how much of its log the correction of a row that did not run a
 * measured call forgets: a row left out for its correction is tried
 * again once the correction has faded (after tens of calls), so that a
 * change of arrival pattern can bring it back */
#define PAT_AUTO_CORR_FADE (1.0 / 32)
/* ... but a row whose correction faded and that then ran slower than the
 * faded correction said, by more than PAT_AUTO_LOST or the machine's
 * scatter (the larger), came back too early: it forgets half as fast from then
 * on, each time, down to PAT_AUTO_CORR_FADE / 2^PAT_AUTO_FADE_HALVINGS; a row
 * that came back and ran as its faded correction said forgets at the full rate
 * again (see pat_auto_realized) */
#define PAT_AUTO_LOST 0.1
#define PAT_AUTO_FADE_HALVINGS 4

/* What auto learns (scores, corrections, trust) is kept per class of
 * message size, a factor of 4 wide (pat_size_class, by which the PAT
 * layer paces the exchange too): what 8 B calls showed says nothing of
 * 64 KiB ones (SMPI, P = 64: the exchange makes an 8 B plan 1.5x slower
 * than modeled, a 64 KiB one runs as modeled).  Classes 0..30 hold up to
 * 4^31 bytes, the last all larger. */
#define PAT_AUTO_CLASSES PAT_SIZE_CLASSES

/* Measured rows: realized times per row measured (their median is the
 * row's figure), the share by which the model's pick and binomial may
 * differ from their model before every row is measured, the factor by
 * which the settled choice's ratio may move (on PAT_AUTO_SAMPLES calm
 * calls in a row) before they are measured again (1.5 on a median once:
 * on this project's oversubscribed 2-core node the medians moved that
 * much every few dozen calls), the exchanged calls a
 * measuring may take per row measured (realized times lost to the
 * pending ring are measured again, up to this), and how far behind the
 * leader a row measured at its best stops being measured. */
#define PAT_AUTO_SAMPLES 3
#define PAT_AUTO_AGREE 0.15
#define PAT_AUTO_DRIFT 2.0
#define PAT_AUTO_SPEND (4 * PAT_AUTO_SAMPLES)
#define PAT_AUTO_BEHIND 1.5
/* A calm call: its arrivals spread over less than this share of its
 * realized time (the settled choice's drift and the measuring's figures
 * count such calls; see "Measured rows"). */
#define PAT_AUTO_CALM_SPREAD 0.1
/* a measured correction's range (medians: not clamped as tightly as the
 * running means; pipeline's model was 6x off on that node) */
#define PAT_AUTO_MEAS_MAX 64.0
/* Back to back: an observed call whose ranks were idle for less than this
 * (their median, seconds, from the end of their call before to its start,
 * the PAT layer's own work left out; pat_state_idle_nth) came right after
 * the call before it.  Its arrivals and realized time measure the
 * pipelining, not the rows (see "Back to back").  8 ranks on 2 cores:
 * 0.1-0.6 us back to back (up to 1.7 us under ASan), 37-81 us with two
 * barriers between the calls. */
#define PAT_AUTO_IDLE 1e-6
/* Absorbing the arrivals (see "Absorbing rows"): the weight of an
 * observed call's gain in its running mean, and the mean gain above
 * which (and above the machine's scatter) the absorbing row takes the
 * blind choice's calls, below which it gives them back. */
#define PAT_AUTO_ABSORB_WEIGHT 0.5
#define PAT_AUTO_ABSORB_ON 0.05
#define PAT_AUTO_ABSORB_OFF 0.0
/* ... and how much of its log the absorbing row's measured slowness
 * forgets per observed call while it rests: it is tried again after
 * about a hundred (a retry costs a few calls) */
#define PAT_AUTO_ABSORB_FADE (1.0 / 128)
/* ... and the lateness, in rounds, of the rank in the check that the
 * absorbing row absorbs a call at all (balanced_ratio) */
#define PAT_AUTO_PROBE_ROUNDS 6

typedef struct learned {
  /* the last scores (aware minus blind) and how many there were */
  double diff[PAT_AUTO_WINDOW];
  long scored;
  int blind_mode;
  long mode_at;       /* scored when the mode last changed */
  long spell_from;    /* aware: the first score of the evidence taken */
  double skim_spread; /* the predicted spread at the last aware choice */
  /* per row that plans with arrivals: its realized over estimated time,
   * over env (1 until a call measured it; 1 for the other rows) */
  double corr[PAT_REDUCE_ALG_COUNT];
  /* per planning row: the fade steps since its last realized time (up to
   * UCHAR_MAX), and how often its fade was halved (PAT_AUTO_LOST) */
  unsigned char faded[PAT_REDUCE_ALG_COUNT], halved[PAT_REDUCE_ALG_COUNT];
  /* settled by measuring: each measured row's median realized time (0:
   * not measured), the row they are taken relative to (-1: none), and
   * the call they were taken at, with the model the corrections were
   * last computed under (see follow) */
  double timed[PAT_REDUCE_ALG_COUNT];
  int ref;
  pat_sched_params at;
  /* realized over estimated time of the rows that do not plan with
   * arrivals: what the machine adds to every row (the stamp exchange,
   * skew), which is no reason to prefer one row to another */
  double env;
  /* the planning row whose trial was measured, trusted while it stays
   * the aware choice (-1: none) */
  int trusted;
  /* Measured rows (see "Measured rows" above): the last realized over
   * estimated ratios of each row that does not plan with arrivals (a
   * ring, newest at nmeas - 1), the phase, the rows being measured, the
   * exchanged calls spent on it, and, once settled by measuring, the
   * median ratio of the row the settling ranked first. */
  double meas[PAT_REDUCE_ALG_COUNT][PAT_AUTO_SAMPLES];
  double secs[PAT_REDUCE_ALG_COUNT][PAT_AUTO_SAMPLES]; /* realized times */
  long nmeas[PAT_REDUCE_ALG_COUNT];
  /* the realized times of calm calls alone (a ring, newest at ncalm -
   * 1), and ncalm when the measuring began (see "Measured rows") */
  double csecs[PAT_REDUCE_ALG_COUNT][PAT_AUTO_SAMPLES];
  long ncalm[PAT_REDUCE_ALG_COUNT], cfrom[PAT_REDUCE_ALG_COUNT];
  /* of those, binomial's calls that came apart, at their balanced
   * equivalent (add_equivalent), and nequiv when the measuring began */
  long nequiv[PAT_REDUCE_ALG_COUNT], efrom[PAT_REDUCE_ALG_COUNT];
  int phase;
  unsigned long long measuring;
  unsigned long long warm;         /* rows with a measured call */
  long from[PAT_REDUCE_ALG_COUNT]; /* nmeas when the measuring began */
  unsigned long long dropped;      /* measured enough: far behind */
  /* the measuring's calls (of the rows measured, since it began) that
   * came calm, and all since the first of them (calm_seen) */
  long calm_calls, since_calm;
  int spent, spent_b2b;            /* calls decided apart, and back to back */
  /* the run being measured back to back (run_sample): its row, last
   * call, time so far and calls (0: none) */
  int run_row;
  long run_last;
  double run_sum, run_ratio; /* seconds, and over each call's estimate */
  int run_n;
  int settled_row; /* -1: none */
  /* calls back to back here (PAT_AUTO_IDLE, back_to_back): one observed
   * call ever came so (b2b_seen), and the observed calls apart since the
   * last that did, up to PAT_AUTO_SAMPLES (skimmed ones too: score counts
   * them before it decides whether there is a score to keep) */
  int apart, b2b_seen;
  /* the observed calls apart so far, and how many there were when it last
   * asked the next exchange for the next one (a skimmed call apart is
   * not scored: keyed on the scores, the third that ends a spell waited
   * for the pace, 1024 calls; unit_auto pace_drops_when_calls_come_apart) */
  long napart, soon_apart;
  long settled_at; /* its nmeas then */
  double settled_ratio;
  int drifting; /* its last calm ratios off it by PAT_AUTO_DRIFT, in a row */
  /* the exchange's pace (see "Pace"): the factor on the automatic
   * interval, and the observed calls since it last changed that used no
   * prediction (blind, or the aware choice was the blind one) */
  int stretch;
  int quiet;
  /* an observed call's prediction missed (score), and the call before
   * which the look it asked exchanges every call (pace) */
  int missed;
  long look_until;
  long soon_scored; /* the score it last asked the next exchange for */
  /* the periods of the last observed calls that came apart (their root's
   * exit-to-exit time: the call and the work before it; a ring, newest
   * at nperiod - 1): how long the pace's calls take (longest_apart) */
  double period[PAT_AUTO_SAMPLES];
  long nperiod;
  /* and of the last observed calls that came back to back (the root's
   * exit-to-exit time: what a call of the loop costs; longest_b2b) */
  double b2b_period[PAT_AUTO_SAMPLES];
  long nb2b_period;
  /* the wall time per call between the class's last observed calls (the
   * earliest arrival of each, over the calls between them, of every
   * size: the gaps between a loop's bursts included; longest_b2b), and
   * the last observed call's index and earliest arrival (-1: none) */
  double wall[PAT_AUTO_SAMPLES];
  long nwall, seen_call;
  double seen_at;
  /* the logs of the last realized over estimated times of rows that do
   * not plan with arrivals (a ring, newest at nnoise - 1): their scatter
   * is the margin a plan must win by (see add_noise) */
  double noise[PAT_AUTO_NOISE];
  long nnoise;
  double scatter; /* the ring's scatter (add_noise), kept as it changes */
  /* the inputs of the last decide_mode: scores, window, scatter */
  long decided_scored;
  int decided_window;
  double decided_scatter;
  /* the probe of this measuring: the model's pick and its measured figure
   * over binomial's (0: no probe, or a figure missing), for
   * PAT_REDUCE_VERBOSE */
  int probe_pick;
  double probe_ratio;
  /* the probe found the model right in this class: the estimates of rows
   * that do not plan are trusted under arrivals (row_estimate) */
  int verified;
  /* the running mean of what the absorbing row would have gained over
   * the blind choice on the observed calls, and whether it takes the
   * blind choice's calls (see "Absorbing rows") */
  double absorb_gain;
  int absorbing;
  /* the last of those gains, the gains scored, and how many there were
   * when it last asked the next exchange for the next one (pace) */
  double absorb_last;
  long absorb_scored, soon_absorb;
  /* the realized over estimated times of the blind choice and of the
   * absorbing row in its place (running geometric means; 0: none yet):
   * the second over the first weighs the absorbing row's estimate */
  double blind_raw, absorb_raw;
  /* the same, of their calm calls only (arrivals spread over under
   * PAT_AUTO_CALM_SPREAD of the time): what the absorbing row costs
   * balanced (absorbs) */
  double blind_calm, absorb_calm;
  /* the running mean of the gains fell below -PAT_AUTO_TIE since the
   * absorbing row last took the calls by its gains: it no longer takes
   * them for costing nothing (absorbs) */
  int absorb_lost;
} learned;

/* Calls come back to back in class l: since a scored call came so, until
 * PAT_AUTO_SAMPLES in a row did not. */
static int back_to_back(const learned *l) {
  return l->b2b_seen && l->apart < PAT_AUTO_SAMPLES;
}

/* learned.phase */
enum {
  PHASE_NEW,     /* nothing measured yet */
  PHASE_PROBE,   /* the model's blind pick against binomial */
  PHASE_EXPLORE, /* every blind candidate */
  PHASE_SETTLED, /* corrections in force (1 where the model was right) */
  PHASE_DRIFTED  /* the settled choice's figure moved: measure every row */
};

/* Running geometric mean m moved toward sample x by weight
 * PAT_AUTO_CORR_WEIGHT; x itself where there is none yet (m 0). */
static double toward(double m, double x) {
  return m > 0 ? exp((1 - PAT_AUTO_CORR_WEIGHT) * log(m) +
                     PAT_AUTO_CORR_WEIGHT * log(x))
               : x;
}

/* Ratio m (0: none) with the share f of its log forgotten: a step of
 * its fade back to 1. */
static double fade_by(double m, double f) {
  return m > 0 ? exp((1 - f) * log(m)) : m;
}

/* The j-th newest of a ring of count measures (j = 0: the latest). */
static double newest(const double *ring, long count, long j) {
  return ring[(count - 1 - j) % PAT_AUTO_SAMPLES];
}

/* The median of the last n of a ring of count measures (n <= count and
 * PAT_AUTO_SAMPLES). */
static double median_of(const double *ring, long count, long n) {
  double v[PAT_AUTO_SAMPLES];
  for (long j = 0; j < n; j++) {
    double x = newest(ring, count, j);
    long i = j;
    for (; i > 0 && v[i - 1] > x; i--)
      v[i] = v[i - 1];
    v[i] = x;
  }
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Row a's calls measured since the measuring began: calm ones, or all. */
static long calls_of(const learned *l, int a, int calm) {
  return calm ? l->ncalm[a] - l->cfrom[a] : l->nmeas[a] - l->from[a];
}

/* Row a's calls since the measuring began that came calm (not
 * binomial's counted at their balanced equivalent). */
static long came_calm(const learned *l, int a) {
  return calls_of(l, a, 1) - (l->nequiv[a] - l->efrom[a]);
}

/* Whether the measuring's calls came calm: one did, and at least half
 * of those since: then the measuring counts calm calls (binomial's
 * equivalents among them).  The first one used to be enough: where calm
 * calls are rare, the rows that had none could then neither finish nor
 * be dropped, and each ran until the budget was spent (a real node, 8
 * ranks on 2 cores, 256 KiB balanced: 1 calm call in 30, each row
 * measured 18 times, the measuring 80 of the first 110 calls).  Counted
 * from the first, so that skewed calls before it (a warm-up) do not
 * hold the calm ones back. */
static int calm_seen(const learned *l) {
  return l->calm_calls > 0 && 2 * l->calm_calls >= l->since_calm;
}

/* Whether row a's figures read its calm calls: it had one since the
 * measuring began, and one of them came calm, or a row being measured
 * had one that came calm (calm_seen; binomial's equivalents alone do not
 * compare with the other rows' calls as they came, all apart). */
static int reads_calm(const learned *l, int a) {
  return calls_of(l, a, 1) > 0 && (came_calm(l, a) > 0 || calm_seen(l));
}

/* Row a's ring that its figures read, and its count: its calm calls'
 * (reads_calm), else all its calls' (see "Measured rows"). */
static const double *row_ring(const learned *l, int a, long *count) {
  int calm = reads_calm(l, a);
  *count = calm ? l->ncalm[a] : l->nmeas[a];
  return calm ? l->csecs[a] : l->secs[a];
}

/* Row a's measures that its figures read, up to PAT_AUTO_SAMPLES. */
static long fresh(const learned *l, int a) {
  long n = calls_of(l, a, reads_calm(l, a));
  return n < PAT_AUTO_SAMPLES ? n : PAT_AUTO_SAMPLES;
}

/* The calls row a still needs measured (calm: calm_seen): PAT_AUTO_SAMPLES
 * calm ones, or where none came of any. */
static long still_needs(const learned *l, int a, int calm) {
  long n = PAT_AUTO_SAMPLES - calls_of(l, a, calm);
  return n > 0 ? n : 0;
}

/* Row a's median realized time since the measuring began (0: none). */
static double row_time(const learned *l, int a) {
  long count;
  const double *ring = row_ring(l, a, &count);
  return fresh(l, a) > 0 ? median_of(ring, count, fresh(l, a)) : 0;
}

/* Row a's fastest realized time since the measuring began (INFINITY:
 * none), or with slowest its slowest (0: none). */
static double row_bound(const learned *l, int a, int slowest) {
  double v = slowest ? 0 : INFINITY;
  long count;
  const double *ring = row_ring(l, a, &count);
  for (long j = 0; j < fresh(l, a); j++) {
    double x = newest(ring, count, j);
    if (slowest ? x > v : x < v)
      v = x;
  }
  return v;
}

/* Whether row a measured clearly faster than row ref: its slowest call
 * since the measuring began faster than ref's fastest.  A node shared and
 * oversubscribed moves a median of PAT_AUTO_SAMPLES calls by 20-40% from
 * run to run (this project's 2 cores, 8 ranks, 512 KiB: radixk measured
 * ahead of binomial in one run and 1.2x behind it in the next), so a row
 * whose calls overlap the reference's only ties with it.  Where times
 * repeat (SMPI) the faster median is clearly faster. */
static int clearly_faster(const learned *l, int a, int ref) {
  return fresh(l, a) > 0 && fresh(l, ref) > 0 &&
         row_bound(l, a, 1) < row_bound(l, ref, 0);
}

/* Whether row a, being measured, can no longer win over binomial: both
 * have PAT_AUTO_SAMPLES measures that their figures read, and a is not
 * clearly faster (settle ties such a row with binomial, and binomial
 * wins the tie: see "Ties"), so more of its calls cost and change
 * nothing; once the measuring counts calm calls, a row that had none is
 * not judged yet.  While it does not (calm_seen), its calls may be a
 * skewed start that calm ones follow, which a few calls must not decide
 * alone: then only a row clearly slower (its fastest call slower than
 * binomial's slowest) can no longer win.  Where no call came calm, a row
 * used to take twice PAT_AUTO_SAMPLES counted calls however it ran (a
 * real node, 8 ranks on 2 cores, 256 KiB balanced: pipeline, 2-3x
 * binomial's time there). */
static int cannot_win(const learned *l, int a) {
  const int bin = PAT_REDUCE_ALG_BINOMIAL;
  if (a == bin || !(l->measuring & (1ull << bin)) ||
      fresh(l, a) < PAT_AUTO_SAMPLES || fresh(l, bin) < PAT_AUTO_SAMPLES)
    return 0;
  return calm_seen(l) ? reads_calm(l, a) && !clearly_faster(l, a, bin)
                      : clearly_faster(l, bin, a);
}

/* Row a's median realized time over its balanced estimate under the
 * model in force now (the PAT layer refits the model while the first
 * calls run: ratios taken under different fits do not compare; 0: not
 * measured). */
static double figure(const learned *l, int a, const pat_sched_params *params) {
  pat_sched_params p = *params;
  double est;
  p.arrivals = NULL;
  est = pat_alg_table[a]->estimate(&p);
  return est > 0 && est < INFINITY ? row_time(l, a) / est : 0;
}

static int size_class(const pat_sched_params *p) {
  return pat_size_class((double)p->count * p->elem_size);
}

/* A decision waiting for its call's real arrivals, then for its realized
 * time. */
typedef struct pending {
  long call; /* -1 once scored */
  pat_reduce_alg aware, blind;
  pat_sched_params params; /* arrivals: predicted (owned) */
  pat_replay *replay;      /* the aware choice's plan, if it planned */
  long ran_call;           /* the scored call whose realized time is due */
  pat_reduce_alg ran;      /* the row that ran */
  double ran_est;          /* its estimate under the real arrivals */
  int cls;                 /* its size class */
  double spread;           /* its real arrivals' spread */
  int skimmed;             /* no aware choice was made: not scored */
  int b2b;                 /* it came back to back: its time is not used */
  int spell;               /* decided while the calls came back to back */
  int absorbed; /* its blind choice was the absorbing row (absorber) */
  int looked;   /* exchanged for a look alone: scored once a cycle shows */
} pending;

/* the values of a pat_auto's state a decision reads and may change,
 * besides caches of its inputs (quiet_state) */
#define QUIET_STATE 13

/* A size class's last call decided in full that was not exchanged (call;
 * -1: none), its inputs (key's arrivals: owned), props and configuration,
 * the state it left and the row it ran; holds: it decided as the call of
 * its class before it, from the same; heard: pat_auto.heard at that call */
typedef struct {
  long call;
  int holds;
  pat_sched_params key;
  pat_call_props props;
  const pat_config *cfg;
  unsigned long gen;
  long state[QUIET_STATE];
  pat_reduce_alg run;
  unsigned long heard;
} quiet_record;

struct pat_auto {
  int nranks;
  /* the cycle the PAT layer's predictions follow (pat_predictor_cycle;
   * 1: none): while there is one, no call is skimmed */
  int cycle;
  /* the inputs of the last aware choice made (a skimmed call makes none)
   * and the choices (arrivals: owned); the blind choice's inputs without
   * arrivals, so a new prediction keeps it */
  int have, have_blind;
  pat_sched_params key, blind_key;
  pat_reduce_alg aware, blind;
  /* per row, its weighed estimate in the blind choice (NAN: not weighed):
   * the floor of its estimate under arrivals (least_of), under the
   * configuration it was weighed in */
  double blind_est[PAT_REDUCE_ALG_COUNT];
  /* the absorbing row's weighed balanced estimate over the blind
   * choice's (NAN: none; see "Absorbing rows") */
  double absorb_ratio;
  const pat_config *blind_cfg;
  unsigned long blind_gen;
  /* the aware choice made for key (a skimmed call, whose aware choice is
   * its blind one, keeps it for the next call that is not skimmed) and
   * its plan, if it planned */
  pat_reduce_alg aware_kept;
  pat_replay *aware_replay;
  /* decisions not scored yet, a ring by call; lag: the longest exchange
   * lag of the calls decided so far and of the layer's exchanges
   * (pending_slots) */
  pending wait[PAT_AUTO_PENDING];
  int lag;
  /* what was learned, per size class, and the last decision's class */
  learned cls[PAT_AUTO_CLASSES];
  int cur;
  /* the last decision put measured corrections in force (1), found the
   * model right (2), or neither (0) */
  int settled_now;
  /* Trial: a planning row that becomes the choice runs one call (the
   * trial call); then, until that call's realized time comes, the blind
   * choice runs; once it came, the row is trusted (learned.trusted).
   * -1: none. */
  long trial_call;
  /* the call the last decision asks to exchange at once (pat_auto_pace;
   * its stretch is the decided class's), and the trial it last asked the
   * next call's exchange for */
  long soon, soon_trial;
  int soon_look; /* soon was asked for a look alone (see "Pace") */
  /* where a costly estimate (a plan) comes from */
  pat_auto_planner planner;
  void *ctx;
  /* Quiet calls (see "Cost per call"), a record per size class;
   * heard: the observations, realized times and planners passed in so
   * far, and the decisions that kept a call for scoring (the pending
   * ring); quiet_calls: the calls decided so; quiet_off: decide every
   * call in full (the tests' reference) */
  quiet_record quiet[PAT_AUTO_CLASSES];
  int quiet_off;
  unsigned long heard, quiet_calls;
};

/* The default planner: the schedule built for rank 0 alone, and freed. */
static double built_plan(void *ctx, pat_reduce_alg alg,
                         const pat_sched_params *p, pat_replay **replay) {
  pat_schedule *sched = NULL;
  double t = INFINITY;
  (void)ctx;
  if (pat_schedule_build(alg, p, 0, &sched) == PAT_SUCCESS) {
    t = pat_schedule_predicted_time(sched) - pat_sched_first_arrival(p);
    *replay = pat_replay_ref(pat_schedule_replay(sched));
  }
  pat_schedule_free(sched);
  return t;
}

pat_auto *pat_auto_alloc(int nranks) {
  pat_auto *s = calloc(1, sizeof *s);
  if (s != NULL) {
    s->nranks = nranks;
    s->cycle = 1;
    s->lag = 1;
    for (int i = 0; i < PAT_AUTO_PENDING; i++)
      s->wait[i].call = s->wait[i].ran_call = -1;
    for (int k = 0; k < PAT_AUTO_CLASSES; k++) {
      for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
        s->cls[k].corr[a] = 1;
      s->cls[k].env = 1;
      s->cls[k].ref = -1;
      s->cls[k].trusted = -1;
      s->cls[k].settled_row = -1;
      s->cls[k].stretch = 1;
      s->cls[k].soon_scored = s->cls[k].soon_apart = -1;
      s->cls[k].soon_absorb = -1;
      s->cls[k].seen_call = -1;
      s->cls[k].decided_scored = -1;
    }
    s->planner = built_plan;
    s->absorb_ratio = NAN;
    s->trial_call = -1;
    s->soon = s->soon_trial = -1;
    for (int k = 0; k < PAT_AUTO_CLASSES; k++)
      s->quiet[k].call = -1;
  }
  return s;
}

void pat_auto_free(pat_auto *s) {
  if (s == NULL)
    return;
  free((void *)s->key.arrivals);
  free((void *)s->blind_key.arrivals);
  for (int k = 0; k < PAT_AUTO_CLASSES; k++)
    free((void *)s->quiet[k].key.arrivals);
  pat_replay_free(s->aware_replay);
  for (int i = 0; i < PAT_AUTO_PENDING; i++) {
    free((void *)s->wait[i].params.arrivals);
    pat_replay_free(s->wait[i].replay);
  }
  free(s);
}

int pat_auto_blind(const pat_auto *s) { return s->cls[s->cur].blind_mode; }

void pat_auto_set_cycle(pat_auto *s, int cycle) {
  s->cycle = cycle > 1 ? cycle : 1;
}

void pat_auto_set_lag(pat_auto *s, int lag) {
  s->lag = lag > s->lag ? lag : s->lag;
}

int pat_auto_settled(const pat_auto *s) { return s->settled_now; }

void pat_auto_set_planner(pat_auto *s, pat_auto_planner planner, void *ctx) {
  s->heard++;
  s->planner = planner != NULL ? planner : built_plan;
  s->ctx = ctx;
}

/* Whether least_of weighs row a: in mask, with an estimate, serving
 * props, and planning with arrivals only when aware and given some. */
static int weighed(int a, const pat_sched_params *params,
                   const pat_call_props *props, int aware,
                   unsigned long long mask) {
  const pat_alg_row *row = pat_alg_table[a];
  return (mask & (1ull << a)) && row->estimate != NULL &&
         pat_alg_unmet(row, props) == 0 &&
         !(row->uses_arrivals && (!aware || params->arrivals == NULL));
}

/* Whether least_of estimates row a: weighed, and not a row whose
 * estimate is never below another weighed row's
 * (pat_alg_row.never_below; under arrivals it can be where it absorbs
 * them: pat_alg_row.absorbs). */
static int counted(int a, const pat_sched_params *params,
                   const pat_call_props *props, int aware,
                   unsigned long long mask) {
  const pat_alg_row *row = pat_alg_table[a];
  return weighed(a, params, props, aware, mask) &&
         !(row->never_below != NULL &&
           !(row->absorbs && aware && params->arrivals != NULL) &&
           weighed(row->never_below->id, params, props, aware, mask));
}

/* Whether row a, one that does not plan with arrivals, is weighed under
 * p's arrivals at its balanced estimate plus their spread (row_estimate):
 * there are arrivals, it is not binomial nor a row whose estimate walks
 * how it absorbs them (pat_alg_row.absorbs), and the model was not found
 * right for it in class l. */
static int spread_added(const learned *l, int a, const pat_sched_params *p) {
  return p->arrivals != NULL && a != PAT_REDUCE_ALG_BINOMIAL &&
         !pat_alg_table[a]->absorbs && !(l->verified && l->corr[a] == 1);
}

/* Row a's estimate under p's arrivals, a row that does not plan with
 * them, in class l.  Its response to arrivals is the model's, trusted
 * only where measuring found the model right in this class (the probe:
 * learned.verified) and put no correction on the row; else its balanced
 * estimate plus the arrivals' spread, as if every rank took part from the
 * first step (binomial's tree is walked under them: the reference row).
 * pipeline's slack on the chain would otherwise buy it calls on a word
 * of the model: a real node, P = 8, 512 KiB, pipeline corrected x1.5
 * from three calls and 2x binomial's time in fact, was the aware choice
 * for 68 of 305 calls under the node's arrival noise; at 8 B, where the
 * model's pick is binomial and no probe ran, for 397 of 1000 calls, at
 * 1.55x binomial's median. */
static double row_estimate(const learned *l, int a, const pat_sched_params *p) {
  pat_sched_params q = *p;
  if (!spread_added(l, a, p))
    return pat_alg_table[a]->estimate(p);
  q.arrivals = NULL;
  return pat_alg_table[a]->estimate(&q) + pat_sched_spread(p);
}

/* Row a's estimate t under p's arrivals (row_estimate's, or a plan's)
 * weighed by its correction: where t is the balanced estimate plus the
 * spread, the correction, measured on calm calls, weighs the row's own
 * time, not the spread, which no row shortens by running faster.  On the
 * whole, a row measured faster than modeled gained that share of every
 * spread: a real node, 8 ranks on 2 cores, 4 KiB balanced, pipeline
 * measured x0.64, under the arrival spreads of the exchanged calls
 * (30-100 us; about 20 us on the others) beat binomial's walk of its
 * tree and was the aware choice on 522 of 1000 calls, each 1.27x
 * binomial's time. */
static double weigh(const learned *l, int a, const pat_sched_params *p,
                    double t) {
  double spread;
  if (pat_alg_table[a]->uses_arrivals || !spread_added(l, a, p))
    return l->corr[a] * t;
  spread = pat_sched_spread(p);
  return l->corr[a] * (t - spread) + spread;
}

/* The least estimate among the rows of mask that can serve props; aware:
 * with params' arrivals, the rows that plan with them included.  The
 * cheap estimates first, but not a row's whose estimate is never below
 * another weighed row's (pat_alg_row.never_below), nor, given floor (each
 * row's weighed balanced estimate, NAN: none), one that arrivals only
 * delay (pat_alg_row.arrivals_delay) whose floor cannot win (P = 128,
 * 64 KiB: pipeline's estimate under arrivals was a third of a decision's
 * cost); then, under arrivals, a row that absorbs them
 * (pat_alg_row.absorbs) where the floor of its never_below row could
 * win; a costly one (a row with a bound) only if its bound could beat
 * them by more than PAT_AUTO_SKIP, planned by the planner, which also
 * gives the plan's replay: *replay gets the winner's (NULL if it did not
 * plan; replay NULL: not wanted).  weighed (NULL: not wanted) gets each
 * row's weighed estimate, NAN for the others.  Writes INFINITY to *t when
 * no row of mask serves props. */
static pat_reduce_alg least_of(const pat_auto *s,
                               const pat_sched_params *params,
                               const pat_call_props *props, int aware,
                               unsigned long long mask, double *t_out,
                               pat_replay **replay, const double *floor,
                               double *weighed) {
  pat_reduce_alg best = PAT_REDUCE_ALG_BINOMIAL;
  double best_t = INFINITY;
  const learned *l = &s->cls[size_class(params)];
  const double *corr = l->corr;
  pat_replay *best_replay = NULL;
  pat_sched_params p = *params;
  if (!aware)
    p.arrivals = NULL;
  if (floor != NULL && !(pat_sched_spread(&p) >= 0))
    floor = NULL; /* no arrival is a number: no estimate is bounded */
  for (int a = 0; weighed != NULL && a < PAT_REDUCE_ALG_COUNT; a++)
    weighed[a] = NAN;
  /* passes: the cheap estimates, the absorbing rows under arrivals
   * (never below their never_below row's balanced estimate:
   * unit_estimate; skipped where that cannot win: P = 128, 64 KiB,
   * localredirect's walk cost a decision 0.6-1.2 us; and ahead of the
   * plans, which then must beat them), the costly ones */
  for (int pass = 0; pass < 3; pass++)
    for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++) {
      const pat_alg_row *row = pat_alg_table[a];
      pat_replay *r = NULL;
      double t;
      int absorbing = row->absorbs && p.arrivals != NULL;
      if (!counted(a, params, props, aware, mask) ||
          (row->bound != NULL ? 2 : absorbing) != pass)
        continue;
      if (pass == 2 && corr[a] * row->bound(&p) >= best_t * (1 - PAT_AUTO_SKIP))
        continue;
      if (pass == 1 && floor != NULL && row->never_below != NULL &&
          floor[row->never_below->id] >= best_t)
        continue;
      /* it could at best tie, and lose the tie (NAN compares false) */
      if (floor != NULL && row->arrivals_delay &&
          (floor[a] > best_t || (floor[a] == best_t && a > (int)best)))
        continue;
      t = pass == 2 ? corr[a] * s->planner(s->ctx, row->id, &p, &r)
                    : weigh(l, a, &p, row_estimate(l, a, &p));
      if (a == PAT_REDUCE_ALG_BINOMIAL) /* see "Ties" */
        t *= 1 - PAT_AUTO_TIE;
      if (weighed != NULL)
        weighed[a] = t;
      if (t < best_t || (t == best_t && a < (int)best)) {
        best_t = t; /* ties (after binomial's discount): table order */
        best = (pat_reduce_alg)a;
        pat_replay_free(best_replay);
        best_replay = r;
      } else {
        pat_replay_free(r);
      }
    }
  *t_out = best_t;
  if (replay != NULL)
    *replay = best_replay;
  else
    pat_replay_free(best_replay);
  return best;
}

/* Among PAT_REDUCE_ALGORITHM's list; when none of it serves the call
 * (none planning without arrivals, for the blind choice), among all
 * (floor and weighed: least_of's). */
static pat_reduce_alg least(const pat_auto *s, const pat_sched_params *params,
                            const pat_call_props *props, int aware,
                            pat_replay **replay, const double *floor,
                            double *weighed) {
  double t;
  pat_reduce_alg best =
      least_of(s, params, props, aware, pat_config_get()->candidates, &t,
               replay, floor, weighed);
  if (!(t < INFINITY)) {
    if (replay != NULL)
      pat_replay_free(*replay);
    best = least_of(s, params, props, aware, ~0ull, &t, replay, floor, weighed);
  }
  return best;
}

/* What a choice planned with p would have taken under actual arrivals:
 * a plan's replay (replay NULL: planned again); a row that does not plan,
 * its row_estimate in class l. */
static double under(pat_reduce_alg alg, const pat_sched_params *p,
                    const pat_replay *replay, const double *actual,
                    const learned *l) {
  pat_sched_params q = *p;
  if (pat_alg_table[alg]->uses_arrivals)
    return replay != NULL ? pat_replay_time(replay, actual)
                          : pat_clairvoyant_estimate(p, actual);
  q.arrivals = actual;
  return row_estimate(l, (int)alg, &q);
}

static int same_inputs(const pat_sched_params *a, const pat_sched_params *b) {
  return a->nranks == b->nranks && a->root == b->root && a->count == b->count &&
         a->commutative == b->commutative && a->in_place == b->in_place &&
         memcmp(&a->model, &b->model, sizeof a->model) == 0 &&
         memcmp(&a->elem_size, &b->elem_size, sizeof a->elem_size) == 0 &&
         (a->arrivals == NULL) == (b->arrivals == NULL) &&
         (a->arrivals == NULL ||
          memcmp(a->arrivals, b->arrivals,
                 (size_t)a->nranks * sizeof *a->arrivals) == 0);
}

/* Copies p and its arrivals into *dst, whose arrivals it owns. */
static int keep(pat_sched_params *dst, const pat_sched_params *p) {
  double *arr = (double *)dst->arrivals;
  if (p->arrivals != NULL) {
    if (arr == NULL)
      arr = malloc((size_t)p->nranks * sizeof *arr);
    if (arr == NULL)
      return 0;
    memcpy(arr, p->arrivals, (size_t)p->nranks * sizeof *arr);
  } else {
    free(arr);
    arr = NULL;
  }
  *dst = *p;
  dst->arrivals = arr;
  return 1;
}

/* Only exchanged calls are kept (no other call is ever observed).  A
 * decision of exchanged call c is scored when c is observed, L calls later
 * (pat_exchange_lag), and its realized time comes when the next exchanged
 * call is observed: at most L + 2 exchanged calls wait at once (one per
 * call of the lag, c, and the next), so L + 3 slots, found by call.  L is
 * the longest lag of the calls decided so far and of the PAT layer's
 * exchanges (pat_auto_set_lag: a small message's is longer, and a call of
 * another size, by name, holds auto's exchanges behind its own), and the
 * slots never shrink under a decision waiting. */
static int pending_slots(const pat_auto *s) {
  int n = s->lag + 3;
  return n < PAT_AUTO_PENDING ? n : PAT_AUTO_PENDING;
}

/* The slot waiting for call's arrivals (scoring) or, realized, for its
 * realized time; NULL if none. */
static pending *waiting(pat_auto *s, long call, int realized) {
  int n = pending_slots(s);
  for (int i = 0; call >= 0 && i < n; i++)
    if ((realized ? s->wait[i].ran_call : s->wait[i].call) == call)
      return &s->wait[i];
  return NULL;
}

/* The call a slot waits for (-1: free). */
static long waits_for(const pending *w) {
  return w->call > w->ran_call ? w->call : w->ran_call;
}

/* A slot for a new decision: a free one, else the oldest decision's. */
static pending *free_slot(pat_auto *s) {
  pending *best = &s->wait[0];
  int n = pending_slots(s);
  for (int i = 0; i < n; i++)
    if (waits_for(&s->wait[i]) < waits_for(best))
      best = &s->wait[i];
  return best;
}

/* The rows the blind choice weighs for a call (as least does), less
 * those whose estimate is over PAT_AUTO_WIDE times the least: a model
 * wrong by more is not what measuring is for, and measuring them costs
 * (P = 64, 8 B: pipeline's chain takes 10x binomial's tree). */
#define PAT_AUTO_WIDE 4.0
static unsigned long long blind_rows(const pat_sched_params *params,
                                     const pat_call_props *props) {
  unsigned long long rows = 0, mask = pat_config_get()->candidates;
  double t[PAT_REDUCE_ALG_COUNT], least_t = INFINITY;
  pat_sched_params p = *params;
  p.arrivals = NULL;
  for (int pass = 0; pass < 2 && rows == 0; pass++, mask = ~0ull)
    for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
      if (counted(a, &p, props, 0, mask)) {
        t[a] = pat_alg_table[a]->estimate(&p);
        if (t[a] < INFINITY)
          rows |= 1ull << a;
        least_t = t[a] < least_t ? t[a] : least_t;
      }
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    if ((rows & (1ull << a)) && t[a] > PAT_AUTO_WIDE * least_t)
      rows &= ~(1ull << a);
  return rows;
}

static int rows_in(unsigned long long rows) {
  int n = 0;
  for (; rows != 0; rows &= rows - 1)
    n++;
  return n;
}

/* Calls of row a in class cls whose realized time is still due. */
static int in_flight(const pat_auto *s, int cls, int a) {
  int n = 0, slots = pending_slots(s);
  for (int i = 0; i < slots; i++)
    n += s->wait[i].cls == cls && (int)s->wait[i].ran == a &&
         waits_for(&s->wait[i]) >= 0;
  return n;
}

/* Begins measuring rows (keeping the ratios of rows measured already). */
static void measure(learned *l, int phase, unsigned long long rows) {
  if (l->measuring == 0)
    l->calm_calls = l->since_calm = 0;
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    if ((rows & (1ull << a)) && !(l->measuring & (1ull << a))) {
      l->from[a] = l->nmeas[a];
      l->cfrom[a] = l->ncalm[a];
      l->efrom[a] = l->nequiv[a];
    }
  l->measuring |= rows;
  l->phase = phase;
  l->spent = l->spent_b2b = 0;
  l->run_n = 0;
}

/* The corrections of the measured rows under the model in force: row
 * a's measured time over the reference row's, times the reference's
 * estimate over a's (at the call they were measured at, arrivals
 * balanced), so that a's corrected estimate stands to the reference's as
 * their measured times do.  Computed again whenever the PAT layer refits
 * the model: corrections kept from another fit would rank the rows by
 * how the fits differ (a real node, P = 8, 512 KiB: a refit moved
 * pipeline, measured 2x binomial, ahead of it). */
static void follow(learned *l, const pat_model *model) {
  pat_sched_params q = l->at;
  double ref_est;
  q.model = *model;
  l->at.model = *model;
  if (l->ref < 0)
    return;
  ref_est = pat_alg_table[l->ref]->estimate(&q);
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    if (!pat_alg_table[a]->uses_arrivals) {
      double est = l->timed[a] > 0 && pat_alg_table[a]->estimate != NULL
                       ? pat_alg_table[a]->estimate(&q)
                       : 0;
      double c = l->timed[a] / l->timed[l->ref] * ref_est / est;
      l->corr[a] = est > 0 && isfinite(c)
                       ? fmin(fmax(c, 1 / PAT_AUTO_MEAS_MAX), PAT_AUTO_MEAS_MAX)
                       : 1;
    }
}

/* The measured figures in force: each measured row's median ratio over
 * binomial's (over the least one's without binomial) is its correction
 * (rows not measured: 1), under this model and later ones (follow);
 * rows: 0 to put the model back in force. */
static void settle(pat_auto *s, learned *l, unsigned long long rows,
                   const pat_sched_params *p) {
  double f[PAT_REDUCE_ALG_COUNT], ref = INFINITY;
  const int bin = PAT_REDUCE_ALG_BINOMIAL;
  l->ref = -1;
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++) {
    f[a] = (rows & (1ull << a)) ? figure(l, a, p) : 0;
    if (f[a] > 0 && (a == bin || (!(f[bin] > 0) && f[a] < ref))) {
      ref = f[a];
      l->ref = a;
    }
  }
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++) {
    l->timed[a] = f[a] > 0 ? row_time(l, a) : 0;
    if (!pat_alg_table[a]->uses_arrivals)
      l->corr[a] = 1;
  }
  /* a row ahead of the reference by its median only ties with it (its
   * corrected estimate is the reference's, balanced: binomial wins the
   * tie, its estimate counting PAT_AUTO_TIE less; see "Ties") */
  for (int a = 0; l->ref >= 0 && a < PAT_REDUCE_ALG_COUNT; a++)
    if (a != l->ref && l->timed[a] > 0 && l->timed[a] < l->timed[l->ref] &&
        !clearly_faster(l, a, l->ref))
      l->timed[a] = l->timed[l->ref];
  l->at = *p;
  l->at.arrivals = NULL;
  follow(l, &p->model);
  if (ref < INFINITY) /* the machine's factor, now that of the reference */
    l->env = fmin(fmax(ref, PAT_AUTO_CORR_MIN), PAT_AUTO_CORR_MAX);
  l->phase = PHASE_SETTLED;
  l->measuring = l->dropped = 0;
  l->settled_row = -1; /* the blind choice, once chosen again */
  s->have = s->have_blind = 0;
}

/* Whether the model puts row a ahead of row b for the call, balanced. */
static int model_ahead(const pat_sched_params *params, int a, int b) {
  pat_sched_params p = *params;
  p.arrivals = NULL;
  return pat_alg_table[a]->estimate(&p) < pat_alg_table[b]->estimate(&p);
}

/* The calls the measuring of class l may spend: PAT_AUTO_SPEND per row
 * measured, and twice that back to back (a row's run must start at a
 * call apart: "Back to back"), each counted on its own calls, so a spell
 * back to back leaves the measuring apart its whole budget. */
static int budget(const learned *l) {
  return PAT_AUTO_SPEND * rows_in(l->measuring);
}

static int budget_spent(const learned *l) {
  return back_to_back(l) ? l->spent_b2b >= 2 * budget(l)
                         : l->spent >= budget(l);
}

/* Back to back with its budget spent, the measuring waits (for calls
 * apart): no row is measured, and the pace is as if settled (else every
 * call would exchange for as long as the calls come back to back). */
static int measuring_waits(const learned *l) {
  return back_to_back(l) && budget_spent(l);
}

/* Moves the measuring of class l on from what came in; returns 1 if the
 * corrections changed (the choices are due again). */
static int advance(pat_auto *s, learned *l, const pat_sched_params *p,
                   const pat_call_props *props) {
  const int bin = PAT_REDUCE_ALG_BINOMIAL;
  int done = 1;
  switch (l->phase) {
  case PHASE_NEW: {
    unsigned long long rows = blind_rows(p, props);
    if ((int)s->blind == bin || !(rows & (1ull << bin)) ||
        !(rows & (1ull << s->blind))) {
      settle(s, l, 0, p); /* nothing to set the model's pick against */
      l->verified = 0;
      return 0;
    }
    l->probe_ratio = 0; /* until the probe is done */
    measure(l, PHASE_PROBE, (1ull << bin) | (1ull << s->blind));
    return 0;
  }
  case PHASE_DRIFTED:
    l->probe_ratio = 0; /* no probe this time */
    measure(l, PHASE_EXPLORE, blind_rows(p, props));
    return 0;
  case PHASE_PROBE:
  case PHASE_EXPLORE:
    for (int a = 0, calm = calm_seen(l); a < PAT_REDUCE_ALG_COUNT; a++)
      if ((l->measuring & ~l->dropped & (1ull << a)) &&
          still_needs(l, a, calm) > 0)
        done = 0;
    /* exploring, binomial measured and every other row dropped: nothing
     * is left to set against it; probing, a pick the model puts ahead
     * that can no longer win over binomial (cannot_win) fails the
     * probe now */
    if (l->phase == PHASE_EXPLORE && fresh(l, bin) > 0 &&
        !(l->measuring & ~l->dropped & ~(1ull << bin)))
      done = 1;
    for (int a = 0; l->phase == PHASE_PROBE && a < PAT_REDUCE_ALG_COUNT; a++)
      if ((l->measuring & (1ull << a)) && cannot_win(l, a) &&
          model_ahead(p, a, bin))
        done = 1;
    if (!done && !budget_spent(l))
      return 0;
    if (l->phase == PHASE_PROBE) {
      /* the model's pick and binomial: if both run as their model says
       * within PAT_AUTO_AGREE of each other, the model ranks right */
      int pick = -1;
      double f_pick, f_bin, ratio;
      for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
        if ((l->measuring & (1ull << a)) && a != bin)
          pick = a;
      f_pick = figure(l, pick, p);
      f_bin = figure(l, bin, p);
      l->probe_pick = pick;
      l->probe_ratio = f_pick > 0 && f_bin > 0 ? f_pick / f_bin : 0;
      /* back to back, a probe without both figures (no run of a row came:
       * calls apart too rare, or none) waits, binomial running (interim),
       * where apart the model would stand unchecked */
      if (!(l->probe_ratio > 0) && back_to_back(l))
        return 0;
      ratio = l->probe_ratio > 0 ? l->probe_ratio : 1;
      /* and in the model's order: a pick the model puts ahead of binomial
       * must measure clearly ahead of it (else every row is measured, and
       * rows that only tie with binomial lose to it) */
      if (ratio <= 1 + PAT_AUTO_AGREE && 1 / ratio <= 1 + PAT_AUTO_AGREE &&
          (!(l->probe_ratio > 0) || !model_ahead(p, pick, bin) ||
           clearly_faster(l, pick, bin))) {
        settle(s, l, 0, p);
        l->verified = 1; /* the model's responses to arrivals, too */
        return 1;
      }
      measure(l, PHASE_EXPLORE, blind_rows(p, props));
      return 0;
    }
    settle(s, l, l->measuring, p);
    l->verified = 0;
    return 1;
  default:
    return 0;
  }
}

/* The row this exchanged call measures, or -1: of the rows being
 * measured that serve props (a size class's calls may differ in op or
 * layout: the measuring began on calls a row served), the one that still
 * needs the most calls (still_needs, less its calls due; back to back:
 * not counting those; the first in the table on ties), while it needs
 * any. */
static int measure_row(const pat_auto *s, learned *l,
                       const pat_call_props *props) {
  int best = -1, calm = calm_seen(l), unserved = 0;
  long best_need = 0;
  double lead = INFINITY;
  if (l->phase != PHASE_PROBE && l->phase != PHASE_EXPLORE)
    return -1;
  /* exploring, a row measured at over PAT_AUTO_BEHIND times the leader's
   * time even at its best is measured no more (its median stays far
   * behind; an oversubscribed node, P = 8, 512 KiB: pipeline 2-3x); once
   * calm calls count, not a row that had none (its calls measured waits) */
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    if ((l->measuring & (1ull << a)) && fresh(l, a) > 0 &&
        row_time(l, a) < lead)
      lead = row_time(l, a);
  for (int a = 0; l->phase == PHASE_EXPLORE && a < PAT_REDUCE_ALG_COUNT; a++)
    if ((l->measuring & (1ull << a)) && fresh(l, a) > 0 &&
        (!calm || calls_of(l, a, 1) > 0) &&
        (row_bound(l, a, 0) > PAT_AUTO_BEHIND * lead || cannot_win(l, a)))
      l->dropped |= 1ull << a;
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    if (l->measuring & ~l->dropped & (1ull << a)) {
      /* back to back, not counting the calls in flight: the row runs
       * consecutive calls until its samples come (its runs: run_sample) */
      long need = still_needs(l, a, calm) -
                  (back_to_back(l) ? 0 : in_flight(s, s->cur, a));
      if (pat_alg_unmet(pat_alg_table[a], props) != 0)
        unserved |= need > 0;
      else if (need > best_need) {
        best_need = need;
        best = a;
      }
    }
  /* back to back, no more calls than the budget: then the measuring
   * waits (advance) */
  if (measuring_waits(l))
    return -1;
  /* a call that a row still wanting measures cannot serve counts as
   * spent too: measuring ends even if such calls are all that come */
  if (back_to_back(l))
    l->spent_b2b += best >= 0 || unserved;
  else
    l->spent += best >= 0 || unserved;
  return best;
}

/* The row a call that measures none runs while rows are measured, in
 * place of the model's blind pick: the row measured fastest so far (its
 * median realized time; the first in the table on ties), unless the
 * pick is being measured and has no measure yet.  The model can be wrong
 * by several times on this machine (see "Measured rows"), and until the
 * measuring ended its pick ran every call between (a real node, 8 ranks
 * on 2 cores, 4 KiB balanced: radixk, 1.4x binomial's time, on 125 of
 * the first 155 calls).  Where the model ranks right, the fastest is its
 * pick. */
static pat_reduce_alg interim(const learned *l, const pat_sched_params *p,
                              const pat_call_props *props,
                              pat_reduce_alg pick) {
  int best = -1;
  if (l->phase != PHASE_PROBE && l->phase != PHASE_EXPLORE)
    return pick;
  if (back_to_back(l)) /* measuring by runs: binomial, if allowed */
    return counted(PAT_REDUCE_ALG_BINOMIAL, p, props, 0,
                   pat_config_get()->candidates)
               ? PAT_REDUCE_ALG_BINOMIAL
               : pick;
  if ((l->measuring & (1ull << pick)) && fresh(l, pick) == 0)
    return pick;
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    if ((l->measuring & (1ull << a)) && fresh(l, a) > 0 &&
        pat_alg_unmet(pat_alg_table[a], props) == 0 &&
        (best < 0 || row_time(l, a) < row_time(l, best)))
      best = a;
  return best >= 0 ? (pat_reduce_alg)best : pick;
}

/* Adds log ratio x to the ring and computes the scatter again: the share
 * of a row's time that the machine's scatter hides, how far the last
 * realized times of rows that do not plan with arrivals stood from their
 * estimates, one standard deviation of the log ratio (0 until
 * PAT_AUTO_NOISE_MIN came).  A plan that wins by less in the model cannot
 * be seen to win when it runs, and running it costs what a plan costs:
 * on a real node, 8 ranks on 2 cores, 8 B balanced, the root's lateness
 * made clairvoyant's plan 1.3 us ahead of binomial's tree in the model,
 * every call, under realized times scattered by 30-60%: auto ran the
 * plan for 500 of 600 calls at 1.8x binomial's median.  Where no
 * scatter is measured (a deterministic simulation, or too few realized
 * times yet), any gain counts. */
static void add_noise(learned *l, double x) {
  long n;
  l->noise[l->nnoise++ % PAT_AUTO_NOISE] = x;
  n = l->nnoise < PAT_AUTO_NOISE ? l->nnoise : PAT_AUTO_NOISE;
  l->scatter =
      n < PAT_AUTO_NOISE_MIN ? 0 : expm1(gsl_stats_sd(l->noise, 1, (size_t)n));
}

/* Class l's wall time per call since its last observed call, from the
 * earliest arrival of each (at: pat_sched_first_arrival; the stamps are
 * on one clock, the PAT layer's), into its ring (longest_b2b). */
static void walled(learned *l, double at, long call) {
  if (!isfinite(at))
    return;
  if (l->seen_call >= 0 && call > l->seen_call && at >= l->seen_at)
    l->wall[l->nwall++ % PAT_AUTO_SAMPLES] =
        (at - l->seen_at) / (double)(call - l->seen_call);
  l->seen_call = call;
  l->seen_at = at;
}

/* The row that absorbs arrivals in the place of blind choice b (any
 * row that does not plan with arrivals: binomial at small messages,
 * radixk or butterfly from a few KiB): one whose estimate under arrivals
 * walks how it absorbs them (pat_alg_row.absorbs: localredirect), other
 * than b, in PAT_REDUCE_ALGORITHM's list; -1: none.  Where it does not
 * absorb (localredirect beyond its tree protocol's sizes: binomial's walk
 * of whole messages) its estimate stays above the blind choice's, and it
 * gains nothing. */
static int absorber(pat_reduce_alg b) {
  if (pat_alg_table[b]->uses_arrivals)
    return -1;
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    if (pat_alg_table[a]->absorbs && a != (int)b &&
        (pat_config_get()->candidates & (1ull << a)))
      return a;
  return -1;
}

/* Whether the absorbing row takes the blind choice's calls in class l
 * (see "Absorbing rows"): its gains turned it on, or it costs them
 * nothing balanced (its balanced estimate, weighed by how much slower
 * than modeled it ran here over the blind choice on calm calls, within
 * PAT_AUTO_TIE of the blind choice's) and the running mean of its gains
 * has not fallen below -PAT_AUTO_TIE since its gains last turned it on
 * (absorb_lost).  By the calm calls: under late ranks its time over its
 * estimate under their arrivals says how well its give-ups are modeled,
 * not what it costs balanced. */
static int absorbs(const pat_auto *s, const learned *l) {
  double slow = l->absorb_calm > 0
                    ? l->absorb_calm / (l->blind_calm > 0 ? l->blind_calm : 1)
                    : 1;
  return l->absorbing ||
         (!l->absorb_lost && s->absorb_ratio * slow <= 1 + PAT_AUTO_TIE);
}

/* The observed call w, under its real arrivals (q): what its absorbing
 * row (absorber) would have gained over its blind choice, each weighed by
 * its correction, as a share of the blind choice's time, into class l's
 * running mean; the absorbing row takes the blind choice's calls once the
 * mean is above PAT_AUTO_ABSORB_ON and the machine's scatter, and gives
 * them back below PAT_AUTO_ABSORB_OFF.  Back to back the arrivals are the
 * calls before's skew, not the pattern's: not scored. */
static void score_absorbing(const pat_auto *s, learned *l, const pending *w,
                            const pat_sched_params *q) {
  int a = absorber(w->blind);
  double base, mine, gain;
  if (a < 0 || w->b2b)
    return;
  base = weigh(l, w->blind, q, row_estimate(l, w->blind, q));
  mine = weigh(l, a, q, row_estimate(l, a, q));
  if (l->absorb_raw > 0) /* as they ran here (the blind one as modeled
                          * until it ran) */
    mine *= l->absorb_raw / (l->blind_raw > 0 ? l->blind_raw : 1);
  if (!(base > 0) || !isfinite(mine))
    return;
  gain = (base - mine) / base;
  l->absorb_gain += PAT_AUTO_ABSORB_WEIGHT * (gain - l->absorb_gain);
  l->absorb_last = gain;
  l->absorb_scored++;
  if (!absorbs(s, l)) { /* forgotten while it rests, */
    l->absorb_raw = fade_by(l->absorb_raw, PAT_AUTO_ABSORB_FADE);
    l->absorb_calm = fade_by(l->absorb_calm, PAT_AUTO_ABSORB_FADE);
  }
  if (l->absorb_gain < -PAT_AUTO_TIE)
    l->absorb_lost = 1;
  if (l->absorb_gain > PAT_AUTO_ABSORB_ON && l->absorb_gain > l->scatter) {
    l->absorbing = 1;
    l->absorb_lost = 0;
  } else if (l->absorb_gain < PAT_AUTO_ABSORB_OFF)
    l->absorbing = 0;
}

/* Whether the arrivals predicted for call w (balanced where none were)
 * missed its real ones (actual, the earliest at lo) on some rank by more
 * than PAT_AUTO_CALM_SPREAD of the blind row bl's balanced estimate, both
 * taken from their earliest rank (see "Pace": a look). */
static int prediction_missed(const pending *w, pat_reduce_alg bl,
                             const double *actual, double lo) {
  pat_sched_params q = w->params;
  const double *pred = w->params.arrivals;
  double worst = 0, plo = 0;
  if (pred != NULL) {
    q.arrivals = pred;
    plo = pat_sched_first_arrival(&q);
  }
  for (int r = 0; r < q.nranks; r++) {
    double e = fabs((actual[r] - lo) - (pred != NULL ? pred[r] - plo : 0));
    worst = e > worst ? e : worst;
  }
  q.arrivals = NULL;
  return worst > PAT_AUTO_CALM_SPREAD * pat_alg_table[bl]->estimate(&q);
}

/* Scores the decision of call, whose real arrivals were actual: both
 * choices' estimates under them, each corrected by its row's realized
 * over estimated ratio; the aware one must win by the machine's scatter
 * (add_noise) to count as ahead. */
static void score(pat_auto *s, const double *actual, long call, double idle) {
  pending *w;
  learned *l;
  double aware, blind, first;
  pat_reduce_alg bl;
  pat_sched_params q; /* the call's, under its real arrivals */
  if (actual == NULL || call < 0)
    return;
  w = waiting(s, call, 0);
  if (w == NULL)
    return; /* not kept, or scored already */
  w->call = -1;
  l = &s->cls[w->cls];
  q = w->params;
  q.arrivals = actual;
  first = pat_sched_first_arrival(&q);
  walled(l, first, call);
  if (isnan(idle)) { /* not known: as the calls have come lately */
    w->b2b = back_to_back(l);
  } else {
    w->b2b = idle < PAT_AUTO_IDLE;
    l->apart = w->b2b ? 0 : l->apart + (l->apart < PAT_AUTO_SAMPLES);
    l->napart += !w->b2b;
    l->b2b_seen |= w->b2b;
  }
  score_absorbing(s, l, w, &q);
  /* the row the blind choice ran as: the absorbing row in its place */
  bl = w->absorbed ? (pat_reduce_alg)absorber(w->blind) : w->blind;
  aware = under(w->aware, &w->params, w->replay, actual, l);
  blind = w->aware == bl ? aware : under(bl, &w->params, NULL, actual, l);
  pat_replay_free(w->replay);
  w->replay = NULL;
  w->ran_est = w->ran == w->aware ? aware
               : w->ran == bl     ? blind
                                  : under(w->ran, &w->params, NULL, actual, l);
  w->ran_call = call;
  w->spread = pat_sched_spread(&q);
  l->missed |= !w->b2b && prediction_missed(w, bl, actual, first);
  /* back to back the predictions cannot pay: a score against them (a
   * score of 0 says nothing, decide_mode); skimmed, no aware choice was
   * made: nothing to score; a look's call tells the cycle predictor, not
   * the mode, until a cycle shows */
  if ((!w->skimmed || w->b2b) && !(w->looked && s->cycle <= 1))
    l->diff[l->scored++ % PAT_AUTO_WINDOW] =
        w->b2b           ? blind
        : w->aware == bl ? 0
                         : weigh(l, w->aware, &q, aware) -
                               (1 - l->scatter) * weigh(l, bl, &q, blind);
  /* pace: observed calls that used no prediction */
  l->quiet += l->blind_mode || w->aware == w->blind;
}

void pat_auto_observed(pat_auto *s, const double *actual, long call,
                       double idle) {
  s->heard++;
  score(s, actual, call, idle);
}

/* Settled, a new ratio r of row a: the first PAT_AUTO_SAMPLES of the
 * settled choice set its figure (their median); once PAT_AUTO_SAMPLES
 * ratios in a row are off it by more than PAT_AUTO_DRIFT, every row is
 * measured again (the machine changed: another job, another placement).
 * Only calm calls (arrivals within PAT_AUTO_CALM_SPREAD of the time) count:
 * the estimates of ring, butterfly and radix-k under late ranks are
 * their balanced formulas plus the spread, so a new arrival pattern moves
 * their ratios (SMPI, P = 64, 1 MiB: a rank late made radixk's ratio
 * drift and every row was measured again). */
static void drifted(learned *l, int a, double r, int calm) {
  if (l->phase != PHASE_SETTLED || a != l->settled_row || !calm ||
      l->nmeas[a] - l->settled_at < PAT_AUTO_SAMPLES)
    return;
  if (!(l->settled_ratio > 0))
    l->settled_ratio = median_of(l->meas[a], l->nmeas[a], PAT_AUTO_SAMPLES);
  else if (!(r > PAT_AUTO_DRIFT * l->settled_ratio ||
             r * PAT_AUTO_DRIFT < l->settled_ratio))
    l->drifting = 0;
  else if (++l->drifting >= PAT_AUTO_SAMPLES) {
    l->phase = PHASE_DRIFTED;
    /* another machine: the plans' fades start again at the full rate */
    memset(l->halved, 0, sizeof l->halved);
  }
}

/* Adds a sample of row a to the measuring's rings: its time and its
 * ratio over the estimate, and if the call was calm its time to those of
 * calm calls. */
static void add_sample(learned *l, int a, double seconds, double ratio,
                       int calm) {
  if (l->measuring & (1ull << a)) {
    l->calm_calls += calm;
    l->since_calm += l->calm_calls > 0;
  }
  l->secs[a][l->nmeas[a] % PAT_AUTO_SAMPLES] = seconds;
  l->meas[a][l->nmeas[a]++ % PAT_AUTO_SAMPLES] = ratio;
  if (calm)
    l->csecs[a][l->ncalm[a]++ % PAT_AUTO_SAMPLES] = seconds;
}

/* The balanced estimate of the row that ran call w (the measuring's
 * yardstick: add_equivalent, arrivals_delay, run_sample). */
static double balanced_estimate(const pending *w) {
  pat_sched_params q = w->params;
  q.arrivals = NULL;
  return pat_alg_table[w->ran]->estimate(&q);
}

/* A binomial call w that came apart goes to the calm calls too, at its
 * balanced equivalent: its ratio (its estimate under the call's arrivals
 * is the model's walk of its tree, row_estimate) times its balanced
 * estimate.  Measured again instead, it cost a call more of the slowest
 * row at large sizes (SMPI, P = 64, 1 MiB, a warm-up call with the root
 * last: binomial 5.1 ms where radixk takes 1.2). */
static void add_equivalent(learned *l, double ratio, double bal) {
  const int a = PAT_REDUCE_ALG_BINOMIAL;
  if (bal > 0 && isfinite(bal) && ratio > 0 && isfinite(ratio)) {
    l->csecs[a][l->ncalm[a]++ % PAT_AUTO_SAMPLES] = ratio * bal;
    l->nequiv[a]++;
  }
}

/* What call w's arrivals added to its row's time (seconds) by the
 * model, at least 0: its estimate under them (row_estimate: the other
 * rows' balanced estimate plus their spread, or the model's response
 * once the probe found it right) less its balanced one; the call less it
 * is its balanced equivalent, which the measuring takes (add_sample), so
 * a row that waited for a late rank is measured without the wait, not
 * with a ratio the wait dilutes (arrivals 1 ms apart, a row 5x its
 * model's 0.1 ms measures 1.4x it by ratio).
 * binomial's walk of its tree under the arrivals credits a late root
 * with receives its children sent before it came, which it does not get
 * (SMPI, P = 16, 64 KiB, the root 0.5 ms late: 0.681 ms, its balanced
 * time plus the whole delay; the walk: 0.03 ms less), so its share is
 * taken by ratio (its time over the walk's, times its balanced estimate,
 * as add_equivalent): a late root then leaves binomial 5% above its
 * time, where the difference would leave it 18% above (unit_auto
 * rare_calm_calls_hold_no_measuring). */
static double arrivals_delay(const pending *w, double seconds, double bal) {
  if (!(bal > 0) || !(w->ran_est > bal) || !isfinite(w->ran_est))
    return 0;
  if (w->ran == PAT_REDUCE_ALG_BINOMIAL)
    return seconds * (1 - bal / w->ran_est);
  return w->ran_est - bal;
}

/* Measuring while the calls come back to back, a row's samples are its
 * runs' times per call (see "Back to back"): a run is the row's
 * consecutive calls from one that came apart; after its k-th call back
 * to back it cost the first call's realized time plus the root's
 * intervals of the k calls (pat_state_intervals_nth: from its exit of the
 * call before to its exit of this one), over k + 1 calls: what a loop of
 * k + 1 such calls costs per call, over the row's balanced estimate.  Only
 * the measuring's ring takes them: the machine's factor, the scatter and
 * the drift compare single calls with their estimates. */
static void run_sample(learned *l, const pending *w, long call, double seconds,
                       const double *intervals) {
  int a = (int)w->ran;
  double iv = intervals != NULL ? intervals[w->params.root] : NAN;
  double est = balanced_estimate(w);
  if (!w->b2b) { /* a run starts (not on the row's first use: set-up) */
    l->run_n = (l->warm & (1ull << a)) && est > 0 && isfinite(est) ? 1 : 0;
    l->run_row = a;
    l->run_last = call;
    l->run_sum = seconds;
    l->run_ratio = seconds / est;
    return;
  }
  /* the call before, back to back or apart, was the run's last (so
   * exchanged, realized, and of this row on every rank) */
  if (l->run_n == 0 || l->run_row != a || l->run_last != call - 1 ||
      !(iv > 0) || !isfinite(iv) || !(est > 0) || !isfinite(est)) {
    l->run_n = 0;
    return;
  }
  l->run_sum += iv;
  l->run_ratio += iv / est; /* each call over its own estimate */
  l->run_n++;
  l->run_last = call;
  /* calm: the intervals, most of it, are of calls back to back (their
   * arrivals say nothing); the first call's spread is its share */
  add_sample(l, a, l->run_sum / l->run_n, l->run_ratio / l->run_n, 1);
}

/* Where call w's time goes, for the measuring: to its row's runs (1:
 * decided back to back: run_sample) or to its ring as it came (0: decided
 * apart, or not measured).  A spell's samples are of one kind while it
 * lasts; at its ends the ring may hold both.  Restarting the counts there
 * lost more: on a real node (8 ranks on 2 cores, two calls per
 * iteration) a spell ends by chance every few dozen calls (three calls in
 * a row came apart), and rows whose counts restarted had no figure when
 * the budget ran out, so the model's pick ran unchecked (7 of 12 runs
 * settled on radixk or butterfly, 1.7-2x binomial's time). */
static int sample_kind(const learned *l, const pending *w) {
  if (pat_alg_table[w->ran]->uses_arrivals ||
      (l->phase != PHASE_PROBE && l->phase != PHASE_EXPLORE) ||
      !(l->measuring & (1ull << w->ran)))
    return 0;
  return w->spell;
}

void pat_auto_realized(pat_auto *s, long call, double seconds,
                       const double *intervals) {
  pending *w;
  learned *l;
  double r, raw;
  int first; /* a planning row's first realized time in the class */
  s->heard++;
  if (call < 0 || !(seconds > 0) || !isfinite(seconds))
    return;
  w = waiting(s, call, 1);
  if (w == NULL || !(w->ran_est > 0) || !isfinite(w->ran_est))
    return;
  w->ran_call = -1;
  l = &s->cls[w->cls];
  /* the call's period, the root's exit to exit: into the ring of its kind
   * (longest_apart, longest_b2b) */
  if (intervals != NULL && intervals[w->params.root] > 0 &&
      isfinite(intervals[w->params.root])) {
    if (w->b2b)
      l->b2b_period[l->nb2b_period++ % PAT_AUTO_SAMPLES] =
          intervals[w->params.root];
    else
      l->period[l->nperiod++ % PAT_AUTO_SAMPLES] = intervals[w->params.root];
  }
  if (w->b2b) { /* the pipelining's time, not the row's */
    if (sample_kind(l, w) == 1)
      run_sample(l, w, call, seconds, intervals);
    if (!pat_alg_table[w->ran]->uses_arrivals) /* its first use came */
      l->warm |= 1ull << w->ran;
    return;
  }
  raw = seconds / w->ran_est;
  if ((l->warm & (1ull << w->ran)) &&
      (w->ran == w->blind ||
       (w->absorbed && (int)w->ran == absorber(w->blind)))) {
    /* the blind choice's and the absorbing row's (score_absorbing) */
    double *m = w->ran == w->blind ? &l->blind_raw : &l->absorb_raw;
    double *c = w->ran == w->blind ? &l->blind_calm : &l->absorb_calm;
    *m = toward(*m, raw);
    if (w->spread < PAT_AUTO_CALM_SPREAD * seconds)
      *c = toward(*c, raw);
  }
  first = pat_alg_table[w->ran]->uses_arrivals && !(l->warm & (1ull << w->ran));
  if (first) {
    /* A planning row's first call in the class came among the first
     * calls, whose arrivals may spread over milliseconds, where the
     * model's estimates mean little.  Slower than its correction says,
     * it counts (the trial is there for a plan the network runs slow);
     * faster, it passes the trial but credits the row nothing.  Counted,
     * such a call of clairvoyant (a real node, 8 ranks on 2 cores, 8 B
     * balanced, call 3, arrivals 0.7 ms apart: 0.41x its estimate) left a
     * correction of 0.8 that faded over hundreds of calls; once the
     * machine's scatter had calmed the plans, made to look 13-20% faster
     * than modeled, won their scores, and a spell of 12-108 calls at
     * 1.08-1.2x binomial's time, the exchange back at every 8th call,
     * began between calls 450 and 720 in 14 of 16 runs of 1000 calls
     * (after: 1 of 6, one whose measuring had gone astray). */
    l->warm |= 1ull << w->ran;
  }
  if (call == s->trial_call) { /* the trial is measured: trusted from now */
    s->trial_call = -1;
    l->trusted = (int)w->ran;
  }
  if (first && raw / l->env < l->corr[w->ran])
    return; /* faster than its correction says: credits nothing */
  r = fmin(fmax(raw, PAT_AUTO_CORR_MIN), PAT_AUTO_CORR_MAX);
  if (!pat_alg_table[w->ran]->uses_arrivals) {
    /* a row's first measured call is not counted: it paid for what the
     * MPI library sets up on first use (connections to new peers; on
     * that node the first calls took up to 10x the later ones) */
    int a = (int)w->ran, kind = sample_kind(l, w);
    /* measuring while the calls come back to back, rows by their runs
     * alone: a call apart among them costs a whole call, one back to
     * back after it only what it adds, and three samples of either kind
     * ranked rows by how their calls fell (a real node, 8 ranks on 2
     * cores, two calls per iteration, 64 KiB: by the calls back to back
     * alone, pipeline measured 0.47x its model and then ran 2.2x
     * binomial's time, or radixk as modeled and 1.7x; by both kinds,
     * butterfly so) */
    if (kind == 1)
      run_sample(l, w, call, seconds, intervals);
    if (l->warm & (1ull << a)) {
      int calm = w->spread < PAT_AUTO_CALM_SPREAD * seconds;
      add_noise(l, log(raw));
      double bal = kind == 0 ? balanced_estimate(w) : 0;
      if (kind == 0)
        add_sample(l, a, seconds - arrivals_delay(w, seconds, bal), raw, calm);
      if (kind == 0 && !calm && a == PAT_REDUCE_ALG_BINOMIAL)
        add_equivalent(l, raw, bal);
      drifted(l, a, raw, calm);
    }
    l->warm |= 1ull << a;
    /* over the row's measured correction: the machine, not the row */
    l->env = toward(l->env, r / l->corr[w->ran]);
  } else {
    int a = (int)w->ran;
    r = fmin(fmax(r / l->env, PAT_AUTO_CORR_MIN), PAT_AUTO_CORR_MAX);
    /* back after a fade (away longer than a trial waits for its realized
     * time): did it come back too early? */
    if (l->faded[a] > pending_slots(s)) {
      int early =
          raw / l->env > l->corr[a] * (1 + fmax(PAT_AUTO_LOST, l->scatter));
      l->halved[a] = !early                                  ? 0
                     : l->halved[a] < PAT_AUTO_FADE_HALVINGS ? l->halved[a] + 1
                                                             : l->halved[a];
    }
    l->faded[a] = 0;
  }
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    if (pat_alg_table[a]->uses_arrivals && a == (int)w->ran)
      l->corr[a] = toward(l->corr[a], r);
    else if (pat_alg_table[a]->uses_arrivals && l->corr[a] != 1) {
      l->corr[a] =
          fade_by(l->corr[a], ldexp(PAT_AUTO_CORR_FADE, -l->halved[a]));
      l->faded[a] += l->faded[a] < UCHAR_MAX;
    }
  /* the planning rows' weights changed: the aware choice is due again
   * (the blind one weighs no planning row) */
  s->have = 0;
}

double pat_auto_correction(const pat_auto *s, pat_reduce_alg alg) {
  return (int)alg >= 0 && alg < PAT_REDUCE_ALG_COUNT ? s->cls[s->cur].corr[alg]
                                                     : 1;
}

/* Whether scores d[0..n) (aware minus blind) show the aware choices
 * ahead beyond their noise: at least two, and their mean below zero by
 * more than a one-sided PAT_AUTO_CONFIDENCE t bound (scores all alike,
 * as with a rank late every call, pass at two); where the machine shows
 * no scatter (noiseless: a simulation), their mean below zero. */
static int surely_ahead(const double *d, int n, int noiseless) {
  double mean, sd;
  mean = gsl_stats_mean(d, 1, (size_t)n);
  if (noiseless)
    return mean < 0;
  if (n < PAT_AUTO_EVIDENCE)
    return 0;
  sd = gsl_stats_sd_m(d, 1, (size_t)n, mean);
  return mean < 0 && mean + gsl_cdf_tdist_Pinv(PAT_AUTO_CONFIDENCE, n - 1.0) *
                                 sd / sqrt((double)n) <
                         0;
}

/* Blind while the aware choices did not beat the blind ones over the
 * window (calls where the two were the same row count for neither; an
 * aware spell counts only its own scores, from the evidence that began
 * it: blind with the pace stretched, the window was one score, and with
 * the pace back at every call, the window of 8 held the old scores that
 * had made auto blind, so it went blind again at the next call on no new
 * score); once blind, aware again only when the last max(window,
 * PAT_AUTO_EVIDENCE) scores show them surely ahead (while the realized
 * times show no scatter, the window's total below zero, as before: SMPI,
 * 8 B, P = 64, a rank late from the 16th call on was seen at the 19th,
 * but two scores ahead took until the 28th and most of the pattern's
 * 16 calls ran blind): on a noisy node
 * (8 ranks on 2 cores, balanced) a prediction that is noise wins
 * about every other window by chance, and each win ran a plan corrected
 * to 1.45x binomial's time; returns 1 if the mode changed. */
static int decide_mode(learned *l, int window) {
  int was = l->blind_mode, k = 0, n;
  int noiseless = l->scatter < PAT_AUTO_NOISELESS;
  double sum = 0, d[PAT_AUTO_WINDOW];
  if (l->decided_scored == l->scored && l->decided_window == window &&
      l->decided_scatter == l->scatter)
    return 0; /* nothing new since the last decision */
  l->decided_scored = l->scored;
  l->decided_window = window;
  l->decided_scatter = l->scatter;
  if (was && !noiseless && window < PAT_AUTO_EVIDENCE)
    window = PAT_AUTO_EVIDENCE;
  n = l->scored < window ? (int)l->scored : window;
  if (!was && l->scored - l->spell_from < n)
    n = (int)(l->scored - l->spell_from);
  for (int j = 0; j < n; j++) {
    double dj = l->diff[(l->scored - 1 - j) % PAT_AUTO_WINDOW];
    sum += dj;
    if (dj != 0)
      d[k++] = dj;
  }
  if (k > 0)
    l->blind_mode = was ? !surely_ahead(d, k, noiseless) : !(sum < 0);
  if (l->blind_mode != was)
    l->mode_at = l->scored;
  if (was && !l->blind_mode)
    l->spell_from = l->scored - n;
  return l->blind_mode != was;
}

/* Whether the configuration in force is cfg, at generation gen (a
 * reload makes a new generation). */
static int same_config(const pat_config *cfg, unsigned long gen) {
  return cfg == pat_config_get() && gen == pat_config_generation();
}

/* The absorbing row's (absorber) weighed estimate over blind choice
 * b's, both balanced (p has no arrivals), in p's class; NAN where there
 * is no absorbing row, no finite estimate, or the absorbing row would not
 * absorb here: with the rank before the root late by PAT_AUTO_PROBE_ROUNDS
 * rounds (binomial's deepest leaf) its estimate must be below the blind
 * choice's (localredirect's in-order tree, for non-commutative ops, is
 * not credited with absorbing: there it would only cost its overhead).
 * Made when the blind choice is (choose), not per call. */
static double balanced_ratio(const pat_auto *s, const pat_sched_params *p,
                             pat_reduce_alg b) {
  const learned *l = &s->cls[size_class(p)];
  int a = absorber(b);
  double base, mine, ratio = NAN, *late;
  pat_sched_params q = *p;
  if (a < 0 || p->nranks < 2)
    return NAN;
  base = weigh(l, b, p, row_estimate(l, b, p));
  mine = weigh(l, a, p, row_estimate(l, a, p));
  if (!(base > 0) || !isfinite(mine))
    return NAN;
  late = calloc((size_t)p->nranks, sizeof *late);
  if (late == NULL)
    return NAN; /* not free, then: the gains decide */
  late[(p->root + p->nranks - 1) % p->nranks] =
      PAT_AUTO_PROBE_ROUNDS * pat_sched_round_cost(p);
  q.arrivals = late;
  if (weigh(l, a, &q, row_estimate(l, a, &q)) <
      weigh(l, b, &q, row_estimate(l, b, &q)))
    ratio = mine / base;
  free(late);
  return ratio;
}

/* Both choices for the call (kept while their inputs repeat); skim: the
 * blind one only (the aware one is the blind one for the call). */
static void choose(pat_auto *s, const pat_sched_params *p,
                   const pat_call_props *props, int skim) {
  pat_sched_params balanced = *p;
  balanced.arrivals = NULL;
  if (!s->have_blind || !same_inputs(&s->blind_key, &balanced)) {
    s->blind = least(s, p, props, 0, NULL, NULL, s->blind_est);
    s->absorb_ratio = balanced_ratio(s, &balanced, s->blind);
    s->have_blind = keep(&s->blind_key, &balanced);
    s->blind_cfg = pat_config_get();
    s->blind_gen = pat_config_generation();
  }
  if (skim) {
    s->aware = s->blind;
    return;
  }
  if (!s->have || !same_inputs(&s->key, p)) {
    pat_replay_free(s->aware_replay);
    /* the blind estimates are the floors: the same inputs balanced (the
     * model among them: a refit moves the corrections too, follow), the
     * same corrections of the rows that do not plan (settle, where they
     * change, drops the blind choice), the same configuration (a reload
     * can change a row's segments or radix) */
    int floors = s->have_blind && same_config(s->blind_cfg, s->blind_gen);
    s->aware_kept = least(s, p, props, 1, &s->aware_replay,
                          floors ? s->blind_est : NULL, NULL);
    s->have = keep(&s->key, p);
  }
  s->aware = s->aware_kept;
}

/* Settled, the blind choice moved to a row never measured in this class
 * (the PAT layer refitted the model, or the arrivals moved the ranking):
 * it is checked before it runs on.  Where the model stood as it ranks
 * (every correction 1), as at the start: its pick against binomial;
 * where rows were corrected, every row again (a probe that agreed would
 * put the model back in force and drop the corrections). */
static int remeasure(const learned *l) {
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    if (!pat_alg_table[a]->uses_arrivals && l->corr[a] != 1)
      return PHASE_DRIFTED;
  return PHASE_NEW;
}

/* A ring's time per call (a ring of count): the median of its last 3,
 * or its latest where that is longer (NAN: none).  The median alone
 * stretches, so one short period does not; the latest shrinks at once: at
 * every 1024th call, calls that slowed were known from one exchange but
 * shrank the pace only at the next, 1024 slow calls later (unit_auto
 * pace_shrinks_when_calls_slow).  One long period costs the exchanges of
 * the pace's growing back. */
static double per_call(const double *ring, long count) {
  return count > 0
             ? fmax(median_of(ring, count,
                              count < PAT_AUTO_SAMPLES ? count
                                                       : PAT_AUTO_SAMPLES),
                    newest(ring, count, 0))
             : NAN;
}

/* The longest interval the pace may stretch to, from shortest (calls)
 * on, doubling up to longest while that many calls take at most
 * PAT_AUTO_REACT at t seconds a call (exchanged data: the same on every
 * rank; none past shortest where t is not known). */
static long longest_by(double t, long shortest, long longest) {
  long n = shortest;
  while (t > 0 && 2 * n <= longest && 2 * n * t <= PAT_AUTO_REACT)
    n *= 2;
  return n;
}

/* Class l's longest interval while its calls come apart (see "Pace"):
 * PAT_EXCHANGE_MAX_EVERY calls, or more, up to PAT_AUTO_MAX_APART, by
 * the periods of its calls apart. */
static long longest_apart(const learned *l) {
  return longest_by(per_call(l->period, l->nperiod), PAT_EXCHANGE_MAX_EVERY,
                    PAT_AUTO_MAX_APART);
}

/* And while they come back to back: PAT_AUTO_MAX_APART calls, or more, up
 * to PAT_EXCHANGE_MAX_PACED, by the periods of its calls back to back and
 * by the wall time per call between its observed calls, the longer: a
 * loop's bursts back to back with gaps between them (patbench's --burst,
 * barriers between) take longer than their periods say (bursts of 100
 * calls of 0.6 us every 10 ms: 100 us a call, not 0.6; by the periods
 * alone every 16384th call would be 1.6 s apart).  There an exchange costs
 * the root 100-200 us (8 ranks on 2 cores, 4 B: the ranks ahead wait for
 * it), hundreds of calls of 0.6 us: at every 1024th call, auto took
 * 1.13-1.24x binomial's median (100 bursts of 1000 calls; 1.19 the median
 * of 12 runs), and 1.11-1.20x (1.13) up to every 16384th. */
static long longest_b2b(const learned *l) {
  double t = per_call(l->b2b_period, l->nb2b_period);
  double wall = per_call(l->wall, l->nwall);
  return longest_by(wall > t ? wall : t, PAT_AUTO_MAX_APART,
                    PAT_EXCHANGE_MAX_PACED);
}

/* Whether seeing a new pattern of arrivals soon can pay: not on two
 * ranks, where no row has a third rank to take a late one's place (the
 * plan is binomial's one message, localredirect has no one to redirect
 * to), so a late rank costs every row its delay (see "Pace"). */
static int arrivals_matter(const pat_auto *s) { return s->nranks > 2; }

/* The exchange's pace for the calls after this one (see "Pace"): every,
 * the interval the PAT layer would use (automatic: 1 if not). */
static void pace(pat_auto *s, learned *l, long call, int every, int automatic) {
  int ahead =
      l->scored > l->mode_at && l->diff[(l->scored - 1) % PAT_AUTO_WINDOW] < 0;
  int b2b = back_to_back(l);
  long longest = b2b ? longest_b2b(l) : longest_apart(l);
  if (!automatic || (l->phase != PHASE_SETTLED && !measuring_waits(l)) ||
      (!l->blind_mode && s->aware != s->blind)) {
    l->stretch = 1;
    l->quiet = 0;
  } else if (!arrivals_matter(s) && 2 * l->stretch * every <= longest) {
    while (2 * l->stretch * every <= longest) /* at once to the longest */
      l->stretch *= 2;
    l->quiet = 0;
  } else if (l->quiet >= PAT_AUTO_QUIET && 2 * l->stretch * every <= longest) {
    l->stretch *= 2;
    l->quiet = 0;
  }
  /* calls apart again, or slower: back to their longest */
  while (l->stretch > 1 && l->stretch * every > longest)
    l->stretch /= 2;
  s->soon = -1;
  s->soon_look = 0;
  /* a look: stretched at every call's interval, an observed call whose
   * prediction missed exchanges the next PAT_AUTO_LOOK calls, so that a
   * new pattern's cycle can be seen (a stretched interval sees one phase
   * of it) while the pace itself stays */
  if (l->missed && automatic && call >= 0 && every == 1 && l->stretch > 1 &&
      !b2b && arrivals_matter(s))
    l->look_until = call + PAT_AUTO_LOOK;
  else if (l->stretch == 1)
    l->look_until = 0; /* every call's exchanged and scored: none to ask */
  l->missed = 0;
  if (!automatic || call < 0)
    return;
  /* measuring rows: every call, so that the measuring ends in a few
   * dozen calls where it took hundreds at the small messages' interval;
   * not where the records are many enough that the interval spreads them
   * on the wire (P > 128) */
  if ((l->phase == PHASE_PROBE || l->phase == PHASE_EXPLORE) &&
      !measuring_waits(l) && !pat_exchange_on_wire(s->nranks))
    s->soon = call + 1;
  /* once per trial and per score ahead: the exchange that answers it is
   * then under way (small messages: an exchange costs about a reduction) */
  if (s->trial_call >= 0 && s->soon_trial != s->trial_call) {
    s->soon_trial = s->trial_call;
    s->soon = call + 1;
  }
  /* and per call apart observed while back to back and stretched past
   * the automatic interval's longest: the observations that end the
   * spell come a call later, not up to 1024 */
  if (b2b && l->apart > 0 && l->stretch * every > PAT_EXCHANGE_MAX_EVERY &&
      l->soon_apart != l->napart) {
    l->soon_apart = l->napart;
    s->soon = call + 1;
  }
  if (l->blind_mode && ahead && l->soon_scored != l->scored) {
    l->soon_scored = l->scored;
    s->soon = call + 1;
  }
  /* and per observed call that showed the absorbing row ahead while it
   * does not run: the calls that bring its running mean over come a lag
   * apart, not the stretched pace apart (SMPI, P = 64, 4 KiB, the last
   * rank late after 44 balanced calls: exchanged every 32nd call, the
   * mean had not turned after 44 calls; unit_auto
   * absorbing_gain_asks_the_next_exchange) */
  if (!absorbs(s, l) && l->absorb_last > PAT_AUTO_ABSORB_ON &&
      l->soon_absorb != l->absorb_scored) {
    l->soon_absorb = l->absorb_scored;
    s->soon = call + 1;
  }
  if (s->soon < 0 && call < l->look_until) {
    s->soon = call + 1;
    s->soon_look = 1;
  }
}

void pat_auto_pace(const pat_auto *s, int *stretch, long *soon) {
  *stretch = s->cls[s->cur].stretch;
  *soon = s->soon;
}

/* Whether call (parameters p, class l) is skimmed: its aware choice is
 * not made (see decide); one that is not keeps the predicted spread. */
static int skimmed(const pat_auto *s, learned *l, const pat_sched_params *p,
                   long call) {
  /* predictions that follow a cycle differ from call to call, and every
   * PAT_AUTO_SKIM-th call would score one phase of it only */
  int skim = call >= 0 && l->blind_mode &&
             l->scored - l->mode_at >= PAT_AUTO_WINDOW &&
             call % PAT_AUTO_SKIM != 0 && call != s->soon && s->cycle <= 1;
  if (call >= 0 && p->arrivals != NULL) {
    double spread = pat_sched_spread(p);
    skim = skim && spread <= 2 * l->skim_spread;
    if (!skim)
      l->skim_spread = spread;
  }
  /* back to back the score is against the predictions whatever they
   * chose (score): the aware choice would only cost its plan */
  return skim || (call >= 0 && l->blind_mode && back_to_back(l));
}

/* Whether a trial of the aware choice, a plan not trusted yet in class l,
 * risks more than it stands to gain: under balanced arrivals its plan
 * (replayed) would lose more on the blind choice than it gains on it under
 * the prediction, both weighed by their corrections, and the last
 * PAT_AUTO_EVIDENCE scores do not all show the aware choices ahead (they
 * would: predictions that came true).  A prediction read off calls whose
 * ranks came apart for a reason that then went away plans for arrivals
 * that do not come: SMPI, P = 64, 4 KiB, patbench's warm-up calls back to
 * back after pipeline's, whose chain let the ranks out one by one, 3.7 us
 * apart: the plan for that staircase was a chain of 63 rounds, 0.23 ms
 * when the timed calls came balanced, where radixk took 0.021 (and under
 * the staircase it gained 0.02 ms on it). */
static int risky(const pat_auto *s, const learned *l,
                 const pat_sched_params *p) {
  pat_sched_params bal = *p;
  double regret, gain;
  int shown = l->scored >= PAT_AUTO_EVIDENCE;
  if (s->aware_replay == NULL || p->arrivals == NULL)
    return 0;
  for (int j = 0; shown && j < PAT_AUTO_EVIDENCE; j++)
    shown = l->diff[(l->scored - 1 - j) % PAT_AUTO_WINDOW] < 0;
  if (shown)
    return 0;
  bal.arrivals = NULL;
  regret = weigh(l, s->aware, &bal, pat_replay_time(s->aware_replay, NULL)) -
           weigh(l, s->blind, &bal, row_estimate(l, s->blind, &bal));
  gain = weigh(l, s->blind, p, row_estimate(l, s->blind, p)) -
         weigh(l, s->aware, p, pat_replay_time(s->aware_replay, p->arrivals));
  return regret > gain;
}

/* One call's choice, decided in full (pat_auto_decide). */
static pat_reduce_alg decide(pat_auto *s, const pat_sched_params *p,
                             const pat_call_props *props, long call,
                             int exchanged, const double *observed,
                             long observed_call, int *switched) {
  pat_reduce_alg run;
  learned *l;
  int measured = -1, skim, every, automatic, absorbed, ab;
  int realizing = call >= 0 &&
                  pat_config_get()->exchange_interval <= PAT_EXCHANGE_MAX_EVERY;
  s->cur = size_class(p);
  l = &s->cls[s->cur];
  pat_auto_set_lag(s, pat_exchange_lag(&p->model,
                                       (double)p->count * (double)p->elem_size,
                                       s->nranks));
  if (l->ref >= 0 && memcmp(&l->at.model, &p->model, sizeof p->model) != 0)
    follow(l, &p->model); /* refitted: the choices are due again */
  /* blind since a window's scores: the aware choice only serves to
   * score, on every PAT_AUTO_SKIM-th call, or at once where the predicted
   * arrivals spread more than twice as wide as at the last one (a late
   * rank appeared: a pattern that changes is seen as soon as without) */
  skim = skimmed(s, l, p, call);
  choose(s, p, props, skim);
  score(s, observed, observed_call, NAN);
  s->settled_now = 0;
  if (realizing) {
    int was = l->phase;
    if (l->phase == PHASE_SETTLED && l->settled_row >= 0 &&
        (int)s->blind != l->settled_row && l->nmeas[s->blind] == 0)
      l->phase = remeasure(l);
    if (advance(s, l, p, props))
      choose(s, p, props, skim); /* the corrections changed */
    if (l->phase == PHASE_SETTLED && was != PHASE_SETTLED && was != PHASE_NEW)
      s->settled_now = was == PHASE_PROBE ? 2 : 1;
    if (l->phase == PHASE_SETTLED && l->settled_row < 0) {
      l->settled_row = (int)s->blind;
      l->settled_at = l->nmeas[s->blind];
      l->settled_ratio = 0; /* from its next ratios */
      l->drifting = 0;
    }
  }
  /* the window spans about PAT_AUTO_WINDOW calls: fewer scored ones
   * where only every E-th call is exchanged (small messages, or a pace
   * stretched), so that a change of pattern is seen within an exchange
   * or two */
  every = pat_config_get()->exchange_interval;
  automatic = every < 0;
  if (automatic)
    every = pat_exchange_interval(&p->model, (double)p->count * p->elem_size,
                                  p->nranks);
  every = every > 1 ? every : 1;
  *switched = decide_mode(l, PAT_AUTO_WINDOW / (every * l->stretch) > 1
                                 ? PAT_AUTO_WINDOW / (every * l->stretch)
                                 : 1);
  if (skim && !l->blind_mode) { /* switched back: the aware choice now */
    skim = 0;
    choose(s, p, props, 0);
  }
  run = l->blind_mode ? s->blind : s->aware;
  /* trust lapses when the aware choice moves off the row (its correction
   * or the arrivals moved it), not while the scores keep auto blind */
  if (call >= 0 && !l->blind_mode && (int)s->aware != l->trusted)
    l->trusted = -1;
  if (realizing && pat_alg_table[run]->uses_arrivals &&
      (int)run != l->trusted) {
    if (s->trial_call >= 0 && (waiting(s, s->trial_call, 0) == NULL &&
                               waiting(s, s->trial_call, 1) == NULL))
      s->trial_call = -1; /* its realized time will not come: try again */
    /* back to back a trial's realized time would not count: none; nor
     * one that risks more than it gains */
    if (s->trial_call < 0 && exchanged && !back_to_back(l) && !risky(s, l, p))
      s->trial_call = call; /* one call on trial */
    else
      run = s->blind; /* until a trial's realized time comes */
  }
  /* a row being measured runs in place of one that does not plan with
   * arrivals (a trial or a trusted plan keeps its call) */
  if (realizing && exchanged && !pat_alg_table[run]->uses_arrivals &&
      (measured = measure_row(s, l, props)) >= 0)
    run = (pat_reduce_alg)measured;
  else if (run == s->blind)
    run = interim(l, p, props, s->blind);
  ab = absorber(s->blind);
  absorbed = ab >= 0 && absorbs(s, l) && l->phase == PHASE_SETTLED &&
             !back_to_back(l) && pat_alg_unmet(pat_alg_table[ab], props) == 0;
  if (run == s->blind && absorbed)
    run = (pat_reduce_alg)ab;
  if (call >= 0 && exchanged) { /* kept for scoring once observed */
    pending *w = free_slot(s);
    pat_replay_free(w->replay); /* a decision never scored */
    w->replay = NULL;
    if (keep(&w->params, p)) {
      w->skimmed = skim;
      w->b2b = 0; /* until it is scored */
      w->replay = skim ? NULL : pat_replay_ref(s->aware_replay);
      w->call = call;
      w->aware = s->aware;
      w->blind = s->blind;
      w->cls = s->cur;
      w->ran = run;
      w->ran_call = -1;
      w->spell = back_to_back(l);
      w->absorbed = absorbed;
      w->looked = s->soon_look && call == s->soon;
    }
  }
  pace(s, l, call, every, automatic);
  return run;
}

/* Quiet calls.  A decision reads the call's inputs (its parameters and
 * predicted arrivals, its props, the configuration), what auto heard
 * (observations, realized times, the planner: only exchanged data) and
 * the state earlier decisions left; a call that is not exchanged adds
 * nothing heard.  So once such a call decided as the call before it (not
 * exchanged either) from the same inputs, leaving the state it found
 * (quiet_state_of: the values a decision reads and may change; what else
 * it writes caches its inputs, or is the aware choice, which a call runs
 * only when the mode is aware, and then it is not skimmed), the next one
 * decides the same again: it is served that row without deciding, and
 * keeps what a decision would that depends on the call's number (whether
 * it is skimmed, and so the spread it keeps: quiet_serve).  A quiet call
 * decides as a full decision would, so the ranks decide alike whichever
 * path each takes (the root of a call in place, whose parameters alone
 * say so, may take the full one where the others take this one).
 * unit_auto quiet_calls_decide_as_full_ones: the rows of every call alike
 * with and without it, at automatic intervals and at a set one of 5 (a
 * skimmed exchanged call: the spread matters).
 *
 * The record is kept per size class, and "the call before it" is the
 * last call of its class: calls of other classes (or of other rows)
 * between leave a class's state as it was unless they decided an
 * exchanged call (the pending ring: counted in heard) or moved the
 * values the class's decision reads that all classes share (the trial,
 * soon: in quiet_state_of, compared: quiet_after); not so a call the
 * dispatcher serves without asking auto to decide (pat_auto_standing),
 * which must follow its record at once.  One record for the
 * communicator made every call after one of another size decide in full,
 * and the next one too: 4 B calls with a 64 KiB one every 100 (8 ranks,
 * back to back), 4.7 full decisions per 101 calls where one size alone
 * had about 1 (the exchanged calls). */
static void quiet_state_of(const pat_auto *s, int cls, pat_reduce_alg run,
                           long v[QUIET_STATE]) {
  const learned *l = &s->cls[cls];
  /* (no class: each record is its class's) */
  long state[QUIET_STATE] = {
      l->phase,       l->blind_mode, l->stretch,    l->quiet,      l->trusted,
      l->settled_row, l->mode_at,    l->spell_from, s->trial_call, s->soon,
      (long)run,      l->apart,      l->b2b_seen};
  memcpy(v, state, sizeof state);
}

/* The inputs of the call are those of record q's call. */
static int quiet_inputs(const quiet_record *q, const pat_sched_params *p,
                        const pat_call_props *props) {
  return same_config(q->cfg, q->gen) &&
         props->commutative == q->props.commutative &&
         props->contiguous == q->props.contiguous &&
         props->count == q->props.count && same_inputs(&q->key, p);
}

/* Call comes after record q's call (of class cls) as if nothing had been
 * decided between: the next call, or the calls between left nothing that
 * the class's decision reads (see "Quiet calls"). */
static int quiet_after(const pat_auto *s, const quiet_record *q, int cls,
                       long call) {
  long v[QUIET_STATE];
  if (q->call < 0 || call <= q->call || s->heard != q->heard)
    return 0;
  if (call == q->call + 1)
    return 1;
  quiet_state_of(s, cls, q->run, v);
  return memcmp(v, q->state, sizeof v) == 0;
}

/* Serves quiet call call of class cls record q's pick, with the one
 * thing a full decision would write that depends on the call's number:
 * whether it is skimmed, and so keeps the predicted spread (its inputs
 * are q's key). */
static pat_reduce_alg quiet_serve(pat_auto *s, quiet_record *q, int cls,
                                  long call) {
  s->cur = cls;
  skimmed(s, &s->cls[cls], &q->key, call);
  q->call = call;
  s->quiet_calls++;
  s->settled_now = 0;
  return q->run;
}

pat_reduce_alg pat_auto_decide(pat_auto *s, const pat_sched_params *p,
                               const pat_call_props *props, long call,
                               int exchanged, const double *observed,
                               long observed_call, int *switched) {
  pat_reduce_alg run;
  long v[QUIET_STATE];
  int cls = size_class(p);
  quiet_record *q = &s->quiet[cls];
  int quiet = call >= 0 && !exchanged && observed == NULL && !s->quiet_off;
  int after = quiet && quiet_after(s, q, cls, call);
  if (after && q->holds && quiet_inputs(q, p, props)) {
    *switched = 0;
    return quiet_serve(s, q, cls, call);
  }
  run = decide(s, p, props, call, exchanged, observed, observed_call, switched);
  q->holds = 0;
  q->call = -1;
  if (!quiet) {
    /* scored, or kept for scoring: what every class's next decision
     * reads (the pending ring, the scores) may have changed */
    s->heard += observed != NULL || (call >= 0 && exchanged);
    return run;
  }
  quiet_state_of(s, cls, run, v);
  if (after && !*switched && quiet_inputs(q, p, props) &&
      memcmp(v, q->state, sizeof v) == 0)
    q->holds = 1;
  else if (keep(&q->key, p)) {
    q->props = *props;
    q->cfg = pat_config_get();
    q->gen = pat_config_generation();
    memcpy(q->state, v, sizeof v);
  } else {
    return run; /* out of memory: the next call is decided in full */
  }
  q->run = run;
  q->call = call;
  q->heard = s->heard;
  return run;
}

int pat_auto_standing(pat_auto *s, const pat_sched_params *p,
                      const pat_call_props *props, long call,
                      pat_reduce_alg *chosen, long *through) {
  int cls = size_class(p);
  quiet_record *q = &s->quiet[cls];
  const learned *l = &s->cls[cls];
  /* only right after its class's record: the dispatcher does not pace a
   * call served here, so a call of another row between (a clairvoyant
   * call by name at this size puts the pace back to every call) would
   * leave this class's pace as that call set it, where a decision would
   * set auto's again: on the ranks that decide (the root of a call in
   * place) and not on the others, the exchange would start on some ranks
   * only */
  if (s->quiet_off || !q->holds || call != q->call + 1 ||
      s->heard != q->heard || pat_alg_table[q->run]->uses_arrivals ||
      !quiet_inputs(q, p, props))
    return 0;
  *chosen = quiet_serve(s, q, cls, call);
  /* a later call may still keep another predicted spread (quiet_serve):
   * until it did, every call is asked; once kept, it keeps the same */
  *through =
      q->key.arrivals != NULL && l->skim_spread != pat_sched_spread(&q->key)
          ? call
          : LONG_MAX;
  return 1;
}

void pat_auto_set_quiet(pat_auto *s, int on) {
  s->quiet_off = !on;
  for (int k = 0; k < PAT_AUTO_CLASSES; k++)
    s->quiet[k].call = -1;
}

unsigned long pat_auto_quiet_calls(const pat_auto *s) { return s->quiet_calls; }

/* The communicator a pat_auto decides for: a plan is built as this rank's
 * schedule through its cache, which the call then runs if auto picks it
 * (not planned twice). */
typedef struct comm_ctx {
  pat_comm_state *state;
  int rank;
} comm_ctx;

static double cached_plan(void *ctx, pat_reduce_alg alg,
                          const pat_sched_params *p, pat_replay **replay) {
  comm_ctx *x = ctx;
  const pat_schedule *sched = NULL;
  const pat_deps *deps = NULL;
  if (pat_comm_state_schedule(x->state, alg, p, x->rank, &sched, &deps) !=
      PAT_SUCCESS)
    return INFINITY;
  *replay = pat_replay_ref(pat_schedule_replay(sched));
  return pat_schedule_predicted_time(sched) - pat_sched_first_arrival(p);
}

typedef struct auto_comm {
  pat_auto *a;
  comm_ctx ctx;
  long observed, realized; /* the latest calls of each passed to auto */
} auto_comm;

static void auto_state_free(void *state) {
  auto_comm *ac = state;
  if (ac != NULL)
    pat_auto_free(ac->a);
  free(ac);
}

/* Call c's parameters for the decision, and its model set as the
 * decision's: told, the PAT layer's, else the configured one. */
static pat_sched_params call_params(pat_call *c) {
  pat_model m;
  if (c->arrivals != NULL && c->pat == NULL)
    m = c->model; /* told arrivals and round cost */
  else if (c->pat == NULL || !pat_state_model(c->pat, &m))
    m = *pat_config_model(pat_config_get());
  c->model = m;
  return (pat_sched_params){.nranks = c->nranks,
                            .root = c->root,
                            .count = c->count,
                            .commutative = c->commutative,
                            .in_place = c->in_place,
                            .model = m,
                            .elem_size = c->count > 0 ? c->bytes / c->count : 0,
                            .arrivals = c->arrivals};
}

/* A quiet call (the PAT layer has nothing to do at it): the last pick, if
 * it stands (pat_auto_standing) for the call and its prediction, and
 * nothing observed or realized since that auto was not given.  The call
 * runs without the prediction (the pick does not plan with arrivals). */
static int auto_standing(pat_call *c, const pat_call_props *props,
                         pat_reduce_alg *chosen, long *through) {
  auto_comm *ac = pat_comm_state_alg(c->state, PAT_REDUCE_ALG_AUTO);
  long latest;
  pat_sched_params p;
  pat_model m;
  if (ac == NULL || c->pat == NULL || c->arrivals != NULL)
    return 0;
  pat_state_observed_nth(c->pat, 0, &latest);
  if (latest > ac->observed)
    return 0;
  pat_state_realized_nth(c->pat, 0, &latest);
  if (latest > ac->realized)
    return 0;
  c->arrivals = pat_state_predict(c->pat, c->bytes, &m);
  p = call_params(c);
  c->arrivals = NULL;
  return pat_auto_standing(ac->a, &p, props, pat_state_calls(c->pat), chosen,
                           through);
}

/* Gives auto every observation and realized time the PAT layer ps still
 * holds that it was not given yet, oldest first (most calls bring nothing
 * new, seen from the latest). */
static void hear(auto_comm *ac, pat_state *ps) {
  long latest;
  pat_state_observed_nth(ps, 0, &latest);
  for (int k = PAT_OBSERVED_KEPT - 1; latest > ac->observed && k >= 0; k--) {
    long at;
    const double *arr = pat_state_observed_nth(ps, k, &at);
    if (arr != NULL && at > ac->observed) {
      long same;
      double idle = pat_state_idle_nth(ps, k, &same);
      pat_auto_observed(ac->a, arr, at, same == at ? idle : NAN);
      ac->observed = at;
    }
  }
  pat_state_realized_nth(ps, 0, &latest);
  for (int k = PAT_OBSERVED_KEPT - 1; latest > ac->realized && k >= 0; k--) {
    long at;
    double done = pat_state_realized_nth(ps, k, &at);
    if (at > ac->realized) {
      pat_auto_realized(ac->a, at, done, pat_state_intervals_nth(ps, k));
      ac->realized = at;
    }
  }
}

pat_auto *pat_auto_of(pat_comm_state *st) {
  auto_comm *ac = pat_comm_state_alg(st, PAT_REDUCE_ALG_AUTO);
  return ac != NULL ? ac->a : NULL;
}

/* A row's name, or "none" for a negative index. */
static const char *row_name(int a) {
  return a >= 0 && a < PAT_REDUCE_ALG_COUNT ? pat_alg_table[a]->name : "none";
}

int pat_auto_describe(const pat_auto *s, char *buf, size_t len) {
  static const char *const phases[] = {"new",     "probing", "exploring",
                                       "settled", "drifted", NULL};
  _Static_assert(sizeof phases / sizeof phases[0] == PHASE_DRIFTED + 2,
                 "a name for every phase, then the sentinel");
  const learned *l = &s->cls[s->cur];
  /* the whole line here (its fields are bounded: about 400 characters),
   * then as much of it as buf holds */
  char line[1024];
  size_t n;
  long shown = l->scored < PAT_AUTO_WINDOW ? l->scored : PAT_AUTO_WINDOW;
  if (buf == NULL || len == 0)
    return -1;
  n = (size_t)snprintf(
      line, sizeof line,
      "class %d %s, predictions %s, aware %s, blind %s, trial %s, "
      "trusted %s, absorbing %s (gain %+.3f), cycle %d, lag %d, pace x%d, "
      "scores (aware - blind, newest first, us):%s",
      s->cur, phases[l->phase], l->blind_mode ? "unused" : "used",
      row_name((int)s->aware), row_name((int)s->blind),
      s->trial_call >= 0 ? "pending" : "none", row_name(l->trusted),
      absorbs(s, l) ? "on" : "off", l->absorb_gain, s->cycle, s->lag,
      l->stretch, shown == 0 ? " none yet" : "");
  for (long j = 0; j < shown && n < sizeof line; j++)
    n += (size_t)snprintf(line + n, sizeof line - n, " %.3g",
                          l->diff[(l->scored - 1 - j) % PAT_AUTO_WINDOW] * 1e6);
  return snprintf(buf, len, "%s", line);
}

/* pat_alg_row.observed: the PAT layer observed an exchange at a call of
 * another row (a rules file's line), or of auto before it decides.  The
 * layer keeps the last PAT_OBSERVED_KEPT observations; with 100 calls of
 * 4 B pinned to binomial between two of auto's at 64 KiB (8 ranks), 13
 * exchanges came between, auto never heard of its own calls, and it
 * measured, scored and paced nothing: every 8th call was exchanged, about
 * 5x binomial's time per call back to back (4.7x by the median of 24 runs
 * through the preload). */
static void auto_observed(pat_call *c) {
  auto_comm *ac = pat_comm_state_alg(c->state, PAT_REDUCE_ALG_AUTO);
  if (ac != NULL && c->pat != NULL)
    hear(ac, c->pat);
}

static int auto_choose(pat_call *c, const pat_call_props *props,
                       pat_reduce_alg *chosen) {
  auto_comm *ac = pat_comm_state_alg(c->state, PAT_REDUCE_ALG_AUTO);
  pat_auto *s;
  long call = -1;
  int switched, settled, exchanged = 0;
  pat_sched_params p;
  if (ac == NULL) {
    ac = calloc(1, sizeof *ac);
    if (ac == NULL || (ac->a = pat_auto_alloc(c->nranks)) == NULL) {
      free(ac);
      return MPI_ERR_NO_MEM;
    }
    ac->ctx = (comm_ctx){c->state, c->rank};
    ac->observed = ac->realized = -1;
    pat_auto_set_planner(ac->a, cached_plan, &ac->ctx);
    pat_comm_state_set_alg(c->state, PAT_REDUCE_ALG_AUTO, ac);
  }
  s = ac->a;
  p = call_params(c);
  if (c->pat != NULL) {
    hear(ac, c->pat);
    call = pat_state_calls(c->pat);
    exchanged = pat_state_exchanging(c->pat);
    pat_auto_set_cycle(s, pat_state_cycle(c->pat));
    pat_auto_set_lag(s, pat_state_lag(c->pat));
  }
  *chosen = pat_auto_decide(s, &p, props, call, exchanged, NULL, -1, &switched);
  if (c->pat != NULL) {
    int stretch;
    long soon;
    pat_auto_pace(s, &stretch, &soon);
    pat_state_pace(c->pat, c->bytes, stretch, soon);
  }
  settled = pat_auto_settled(s);
  if (settled && c->rank == 0 && pat_config_get()->verbose >= 1) {
    fprintf(stderr,
            "patreduce: auto on a communicator of %d ranks, call %lu, %.0f B: "
            "rows measured against their model; %s",
            c->nranks, pat_comm_state_calls(c->state), c->bytes,
            settled == 2 ? "it ranks right" : "now weighed");
    if (s->cls[s->cur].probe_ratio > 0) /* the model's pick, binomial */
      fprintf(stderr, " (%s ran %.2fx its modeled time relative to binomial's)",
              pat_alg_table[s->cls[s->cur].probe_pick]->name,
              s->cls[s->cur].probe_ratio);
    if (settled == 2)
      fprintf(stderr, "\n");
    for (int a = 0; settled == 1 && a < PAT_REDUCE_ALG_COUNT; a++)
      if (pat_auto_correction(s, (pat_reduce_alg)a) != 1)
        fprintf(stderr, " %s x%.2f", pat_alg_table[a]->name,
                pat_auto_correction(s, (pat_reduce_alg)a));
    if (settled == 1)
      fprintf(stderr, "; choosing %s\n", pat_alg_table[*chosen]->name);
  }
  if (c->rank == 0 && pat_config_get()->verbose >= 3) {
    char why[1024];
    pat_auto_describe(s, why, sizeof why);
    fprintf(stderr,
            "patreduce: auto on a communicator of %d ranks, call %lu, %.0f B: "
            "%s%s; %s\n",
            c->nranks, pat_comm_state_calls(c->state), c->bytes,
            pat_alg_table[*chosen]->name,
            exchanged ? " (stamps exchanged)" : "", why);
  }
  if (switched && c->rank == 0 && pat_config_get()->verbose >= 1)
    fprintf(stderr,
            "patreduce: auto on a communicator of %d ranks, call %lu: the "
            "predictions %s over the last scored calls; choosing %s\n",
            c->nranks, pat_comm_state_calls(c->state),
            pat_auto_blind(s) ? "did not pay" : "paid again",
            pat_auto_blind(s) ? "without them" : "with them again");
  return MPI_SUCCESS;
}

const pat_alg_row pat_alg_auto = {
    .id = PAT_REDUCE_ALG_AUTO,
    .name = "auto",
    .description = "per call, the row with the least modeled time under the "
                   "predicted arrivals; without the predictions while they "
                   "did not pay",
    .choose = auto_choose,
    .standing = auto_standing,
    .observed = auto_observed,
    /* where ranks share cores its rows time-share them and every rank's
     * per-call work (stamps, decisions, plans) costs them all at once:
     * binomial serves (see "Shared cores") */
    .needs = PAT_NEEDS_OWN_CORES,
    .fallback = PAT_REDUCE_ALG_BINOMIAL,
    .uses_arrivals = 1,
    /* what its candidates' estimates and schedules read */
    .uses =
        PAT_SCOPE_BIT(PAT_SCOPE_SCHEDULE) | PAT_SCOPE_BIT(PAT_SCOPE_SEGMENTS),
    .state_free = auto_state_free};
