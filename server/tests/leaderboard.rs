//! The leaderboard calls over a real socket: ranks both ways with ties by
//! id, score ranges with offset and limit, ranks of ids (missing ones left
//! out), competition ranks, length, removal and deletion, a board apart
//! from an item of the same name and gone with its cache's flush, scores
//! that round-trip exactly, and bad input (its status, and that nothing
//! changed). Every test runs on both stores.

use jiffy_server::proto::cache_client::{GetRequest, SetRequest};
use jiffy_server::proto::common::Unbounded;
use jiffy_server::proto::control_client::FlushCacheRequest;
use jiffy_server::proto::leaderboard::leaderboard_client::LeaderboardClient;
use jiffy_server::proto::leaderboard::score_range::{Max, Min};
use jiffy_server::proto::leaderboard::*;
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::common::stores::{on_both_stores, RedisNode, Store, SMALL_LIMITS};
use crate::common::{in_cache, Data, TestServer};

on_both_stores!(
    ranks_both_ways_with_ties_by_id,
    score_ranges_page_and_rank_in_the_whole_board,
    ranks_of_ids_leave_missing_ones_out,
    length_remove_and_delete,
    a_board_is_apart_from_an_item_and_goes_with_a_flush,
    scores_round_trip_exactly,
    bad_input_is_refused_and_changes_nothing,
    a_board_past_the_element_limit_is_refused,
);

const CACHE: &str = "c";

/// The elements of the official suites' score example.
const SCORES: &[(u32, f64)] = &[
    (123, 10.0),
    (234, 100.0),
    (345, 250.0),
    (456, 500.0),
    (567, 750.0),
    (678, 1000.0),
    (789, 1500.0),
    (890, 2000.0),
];

/// The leaderboard calls of one cache.
struct Boards {
    client: LeaderboardClient<Channel>,
    data: Data,
}

/// (id, rank, score) of each answered element.
type Ranked = Vec<(u32, u32, f64)>;

fn order(descending: bool) -> i32 {
    if descending {
        Order::Descending as i32
    } else {
        Order::Ascending as i32
    }
}

fn flat(elements: Vec<RankedElement>) -> Ranked {
    elements
        .into_iter()
        .map(|e| (e.id, e.rank, e.score))
        .collect()
}

fn ids(ranked: &Ranked) -> Vec<(u32, u32)> {
    ranked.iter().map(|(id, rank, _)| (*id, *rank)).collect()
}

fn span(min: Option<f64>, max: Option<f64>) -> ScoreRange {
    ScoreRange {
        min: Some(min.map_or(Min::UnboundedMin(Unbounded {}), Min::MinInclusive)),
        max: Some(max.map_or(Max::UnboundedMax(Unbounded {}), Max::MaxExclusive)),
    }
}

impl Boards {
    async fn start(store: Store, args: &[&str]) -> (TestServer, Option<RedisNode>, Boards) {
        let (server, redis) = store.start(args).await;
        let data = server.cache(CACHE).await;
        let client = LeaderboardClient::new(server.channel().await);
        (server, redis, Boards { client, data })
    }

    async fn upsert(&mut self, board: &str, elements: &[(u32, f64)]) -> Result<(), Status> {
        let request = UpsertElementsRequest {
            leaderboard: board.into(),
            elements: elements
                .iter()
                .map(|&(id, score)| Element { id, score })
                .collect(),
        };
        self.client
            .upsert_elements(in_cache(CACHE, request))
            .await?;
        Ok(())
    }

    async fn by_rank(
        &mut self,
        board: &str,
        start: u32,
        end: u32,
        desc: bool,
    ) -> Result<Ranked, Status> {
        let request = GetByRankRequest {
            leaderboard: board.into(),
            rank_range: Some(RankRange {
                start_inclusive: start,
                end_exclusive: end,
            }),
            order: order(desc),
        };
        let answer = self.client.get_by_rank(in_cache(CACHE, request)).await?;
        Ok(flat(answer.into_inner().elements))
    }

    async fn by_score(
        &mut self,
        board: &str,
        range: ScoreRange,
        offset: u32,
        limit: u32,
        desc: bool,
    ) -> Result<Ranked, Status> {
        let request = GetByScoreRequest {
            leaderboard: board.into(),
            score_range: Some(range),
            offset,
            limit_elements: limit,
            order: order(desc),
        };
        let answer = self.client.get_by_score(in_cache(CACHE, request)).await?;
        Ok(flat(answer.into_inner().elements))
    }

    async fn rank(&mut self, board: &str, asked: &[u32], desc: bool) -> Result<Ranked, Status> {
        let request = GetRankRequest {
            leaderboard: board.into(),
            ids: asked.to_vec(),
            order: order(desc),
        };
        let answer = self.client.get_rank(in_cache(CACHE, request)).await?;
        Ok(flat(answer.into_inner().elements))
    }

    async fn competition(&mut self, board: &str, asked: &[u32], wire: Option<i32>) -> Ranked {
        let request = GetCompetitionRankRequest {
            leaderboard: board.into(),
            ids: asked.to_vec(),
            order: wire,
        };
        let answer = self.client.get_competition_rank(in_cache(CACHE, request));
        flat(answer.await.unwrap().into_inner().elements)
    }

    async fn length(&mut self, board: &str) -> u32 {
        let request = GetLeaderboardLengthRequest {
            leaderboard: board.into(),
        };
        let answer = self.client.get_leaderboard_length(in_cache(CACHE, request));
        answer.await.unwrap().into_inner().count
    }

    async fn remove(&mut self, board: &str, removed: &[u32]) -> Result<(), Status> {
        let request = RemoveElementsRequest {
            leaderboard: board.into(),
            ids: removed.to_vec(),
        };
        self.client
            .remove_elements(in_cache(CACHE, request))
            .await?;
        Ok(())
    }

    async fn delete(&mut self, board: &str) {
        let request = DeleteLeaderboardRequest {
            leaderboard: board.into(),
        };
        let answer = self.client.delete_leaderboard(in_cache(CACHE, request));
        answer.await.unwrap();
    }

    async fn all(&mut self, board: &str) -> Ranked {
        self.by_rank(board, 0, 8192, false).await.unwrap()
    }
}

async fn ranks_both_ways_with_ties_by_id(store: Store) {
    let (_server, _redis, mut boards) = Boards::start(store, &[]).await;
    boards
        .upsert("b", &[(7, 5.0), (3, 5.0), (9, 1.0), (1, 8.0), (4, 5.0)])
        .await
        .unwrap();
    let asc = boards.by_rank("b", 0, 10, false).await.unwrap();
    assert_eq!(ids(&asc), [(9, 0), (3, 1), (4, 2), (7, 3), (1, 4)]);
    let desc = boards.by_rank("b", 0, 10, true).await.unwrap();
    assert_eq!(ids(&desc), [(1, 0), (7, 1), (4, 2), (3, 3), (9, 4)]);
    let middle = boards.by_rank("b", 1, 3, true).await.unwrap();
    assert_eq!(middle, [(7, 1, 5.0), (4, 2, 5.0)]);
    assert!(boards.by_rank("b", 5, 8, false).await.unwrap().is_empty());
    assert!(boards
        .by_rank("nothing", 0, 10, false)
        .await
        .unwrap()
        .is_empty());
    // A new score moves an id; it never holds two.
    boards.upsert("b", &[(9, 9.0)]).await.unwrap();
    let top = boards.by_rank("b", 0, 1, true).await.unwrap();
    assert_eq!(top, [(9, 0, 9.0)]);
    assert_eq!(boards.length("b").await, 5);
}

async fn score_ranges_page_and_rank_in_the_whole_board(store: Store) {
    let (_server, _redis, mut boards) = Boards::start(store, &[]).await;
    boards.upsert("b", SCORES).await.unwrap();
    let open = span(None, None);
    let page = boards.by_score("b", open, 2, 2, false).await.unwrap();
    assert_eq!(page, [(345, 2, 250.0), (456, 3, 500.0)]);
    let within = boards
        .by_score("b", span(Some(750.0), Some(1500.0)), 0, 8192, false)
        .await
        .unwrap();
    assert_eq!(ids(&within), [(567, 4), (678, 5)]);
    let desc = boards
        .by_score("b", span(Some(0.0), Some(800.0)), 2, 10, true)
        .await
        .unwrap();
    assert_eq!(ids(&desc), [(345, 5), (234, 6), (123, 7)]);
    let top = boards
        .by_score("b", span(Some(500.0), None), 0, 2, true)
        .await
        .unwrap();
    assert_eq!(ids(&top), [(890, 0), (789, 1)]);
    let past = boards.by_score("b", open, 10, 5, false).await.unwrap();
    assert!(past.is_empty());
    let empty = span(Some(100.0), Some(100.0));
    assert!(boards
        .by_score("b", empty, 0, 5, false)
        .await
        .unwrap()
        .is_empty());
    let missing = boards.by_score("nothing", open, 0, 5, true).await.unwrap();
    assert!(missing.is_empty());
}

async fn ranks_of_ids_leave_missing_ones_out(store: Store) {
    let (_server, _redis, mut boards) = Boards::start(store, &[]).await;
    boards
        .upsert("b", &[(1, 10.0), (2, 20.0), (3, 20.0), (4, 30.0)])
        .await
        .unwrap();
    let asc = boards.rank("b", &[4, 99, 1], false).await.unwrap();
    assert_eq!(asc, [(4, 3, 30.0), (1, 0, 10.0)]);
    let desc = boards.rank("b", &[2, 3], true).await.unwrap();
    assert_eq!(ids(&desc), [(2, 2), (3, 1)]);
    assert!(boards
        .rank("nothing", &[1], false)
        .await
        .unwrap()
        .is_empty());
    // Tied scores share a competition rank: descending unless asked.
    let shared = boards.competition("b", &[2, 3, 1, 4], None).await;
    assert_eq!(ids(&shared), [(2, 1), (3, 1), (1, 3), (4, 0)]);
    let ascending = Some(Order::Ascending as i32);
    let shared = boards.competition("b", &[3, 4], ascending).await;
    assert_eq!(ids(&shared), [(3, 1), (4, 3)]);
}

async fn length_remove_and_delete(store: Store) {
    let (_server, _redis, mut boards) = Boards::start(store, &[]).await;
    assert_eq!(boards.length("b").await, 0);
    boards.upsert("b", SCORES).await.unwrap();
    assert_eq!(boards.length("b").await, 8);
    boards.remove("b", &[123, 5, 890]).await.unwrap();
    assert_eq!(boards.length("b").await, 6);
    let top = boards.by_rank("b", 0, 1, true).await.unwrap();
    assert_eq!(top, [(789, 0, 1500.0)]);
    boards.remove("nothing", &[1]).await.unwrap();
    let rest: Vec<u32> = SCORES.iter().map(|(id, _)| *id).collect();
    boards.remove("b", &rest).await.unwrap();
    assert_eq!(boards.length("b").await, 0);
    boards.upsert("b", SCORES).await.unwrap();
    boards.delete("b").await;
    boards.delete("b").await;
    assert_eq!(boards.length("b").await, 0);
    assert!(boards.all("b").await.is_empty());
}

async fn a_board_is_apart_from_an_item_and_goes_with_a_flush(store: Store) {
    let (server, _redis, mut boards) = Boards::start(store, &[]).await;
    boards.data.put(b"b", b"an item").await;
    boards.upsert("b", SCORES).await.unwrap();
    assert_eq!(&boards.data.value_of(b"b").await[..], b"an item");
    let set = SetRequest {
        cache_key: "b".into(),
        cache_body: "another".into(),
        ttl_milliseconds: 60_000,
    };
    boards
        .data
        .client
        .set(boards.data.request(set))
        .await
        .unwrap();
    assert_eq!(boards.length("b").await, 8);
    boards.delete("b").await;
    let get = GetRequest {
        cache_key: "b".into(),
    };
    let item = boards.data.client.get(boards.data.request(get)).await;
    assert_eq!(&item.unwrap().into_inner().cache_body[..], b"another");

    boards.upsert("b", SCORES).await.unwrap();
    let flush = FlushCacheRequest {
        cache_name: CACHE.into(),
    };
    server.control().await.flush_cache(flush).await.unwrap();
    assert_eq!(boards.length("b").await, 0);
    let unknown = boards.client.get_leaderboard_length(in_cache(
        "no-such-cache",
        GetLeaderboardLengthRequest {
            leaderboard: "b".into(),
        },
    ));
    assert_eq!(unknown.await.unwrap_err().code(), Code::NotFound);
}

async fn scores_round_trip_exactly(store: Store) {
    let (_server, _redis, mut boards) = Boards::start(store, &[]).await;
    let scores = [
        0.1,
        -2.5e-300,
        1e300,
        f64::MAX,
        f64::MIN_POSITIVE,
        16_777_217.0,
        1.0 / 3.0,
        -0.0,
    ];
    let elements: Vec<(u32, f64)> = scores.iter().zip(1..).map(|(s, id)| (id, *s)).collect();
    boards.upsert("b", &elements).await.unwrap();
    let mut expected: Vec<f64> = scores.to_vec();
    expected.sort_by(f64::total_cmp);
    let held: Vec<f64> = boards.all("b").await.iter().map(|e| e.2).collect();
    let expected: Vec<f64> = expected.iter().map(|s| s + 0.0).collect();
    assert_eq!(held, expected);
    assert!(held.iter().all(|s| !(s.is_sign_negative() && *s == 0.0)));
    assert_eq!(boards.data.cache, CACHE);
}

fn invalid<T: std::fmt::Debug>(result: Result<T, Status>) {
    let status = result.expect_err("the call should be refused");
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
}

async fn bad_input_is_refused_and_changes_nothing(store: Store) {
    let (_server, _redis, mut boards) = Boards::start(store, &[]).await;
    boards.upsert("b", SCORES).await.unwrap();
    let before = boards.all("b").await;
    invalid(boards.upsert("b", &[]).await);
    let many: Vec<(u32, f64)> = (0..8193).map(|id| (id, 1.0)).collect();
    invalid(boards.upsert("b", &many).await);
    invalid(boards.upsert("b", &[(1, 2.0), (2, f64::NAN)]).await);
    invalid(boards.upsert("b", &[(1, f64::INFINITY)]).await);
    invalid(boards.upsert("", &[(1, 1.0)]).await);
    let ids: Vec<u32> = (0..8193).collect();
    invalid(boards.remove("b", &ids).await);
    invalid(boards.rank("b", &ids, false).await);
    invalid(boards.by_rank("b", 0, 0, false).await);
    invalid(boards.by_rank("b", 10, 5, false).await);
    invalid(boards.by_rank("b", 0, 8193, false).await);
    assert_eq!(boards.by_rank("b", 1, 8193, false).await.unwrap().len(), 7);
    invalid(
        boards
            .by_score("b", span(Some(100.0), Some(50.0)), 0, 10, false)
            .await,
    );
    invalid(
        boards
            .by_score("b", span(Some(f64::NAN), None), 0, 10, false)
            .await,
    );
    invalid(boards.by_score("b", span(None, None), 0, 0, false).await);
    invalid(boards.by_score("b", span(None, None), 0, 8193, false).await);
    let request = GetByRankRequest {
        leaderboard: "b".into(),
        rank_range: None,
        order: 0,
    };
    invalid(boards.client.get_by_rank(in_cache(CACHE, request)).await);
    let request = GetRankRequest {
        leaderboard: "b".into(),
        ids: vec![123],
        order: 7,
    };
    invalid(boards.client.get_rank(in_cache(CACHE, request)).await);
    assert_eq!(boards.all("b").await, before);
}

async fn a_board_past_the_element_limit_is_refused(store: Store) {
    let (_server, _redis, mut boards) = Boards::start(store, SMALL_LIMITS).await;
    boards.upsert("b", &SCORES[..5]).await.unwrap();
    let before = boards.all("b").await;
    let refused = boards.upsert("b", &[(1, 1.0), (123, 2.0)]).await;
    assert_eq!(refused.unwrap_err().code(), Code::ResourceExhausted);
    assert_eq!(boards.all("b").await, before);
    // Ids it holds already are no growth.
    boards.upsert("b", &[(123, 2.0), (234, 3.0)]).await.unwrap();
    assert_eq!(boards.length("b").await, 5);
    let long = "a name longer than sixteen bytes";
    let status = boards.upsert(long, &[(1, 1.0)]).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
}
