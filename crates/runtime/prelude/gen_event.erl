%% gen_event: event managers and their handlers, written from OTP 25's
%% documentation. The manager is a process holding handlers ({Module, Id}
%% or Module); notify/2 sends {notify, Event}; the other requests are
%% gen:call/4 calls labelled with the caller's pid, so the manager
%% receives {CallerPid, From, Request} as in OTP. A handler that crashes or
%% returns something bad is removed with an error report; a supervised
%% handler's owner gets {gen_event_EXIT, Handler, Reason}.
-module(gen_event).
-export([start/0, start/1, start/2, start_link/0, start_link/1,
         start_link/2, start_monitor/0, start_monitor/1, start_monitor/2,
         stop/1, stop/3, notify/2, sync_notify/2, call/3, call/4,
         send_request/3, wait_response/2, receive_response/2,
         check_response/2, add_handler/3, add_sup_handler/3,
         delete_handler/3, swap_handler/3, swap_sup_handler/3,
         which_handlers/1]).
-export([init_it/6, wake_hib/4, system_continue/3, system_terminate/4,
         system_code_change/4, system_get_state/1, system_replace_state/2,
         format_status/2, format_log/1, format_log/2]).

%% `ref` tells apart handlers of the same module and id (OTP allows
%% adding one twice; requests then go to the newest).
-record(handler, {module, id = false, state, supervised = false, ref}).

start() -> gen:start(?MODULE, nolink, ?MODULE, [], []).
start(Name) when is_tuple(Name) -> gen:start(?MODULE, nolink, Name, ?MODULE, [], []);
start(Opts) when is_list(Opts) -> gen:start(?MODULE, nolink, ?MODULE, [], Opts).
start(Name, Opts) -> gen:start(?MODULE, nolink, Name, ?MODULE, [], Opts).

start_link() -> gen:start(?MODULE, link, ?MODULE, [], []).
start_link(Name) when is_tuple(Name) -> gen:start(?MODULE, link, Name, ?MODULE, [], []);
start_link(Opts) when is_list(Opts) -> gen:start(?MODULE, link, ?MODULE, [], Opts).
start_link(Name, Opts) -> gen:start(?MODULE, link, Name, ?MODULE, [], Opts).

start_monitor() -> gen:start(?MODULE, monitor, ?MODULE, [], []).
start_monitor(Name) when is_tuple(Name) ->
    gen:start(?MODULE, monitor, Name, ?MODULE, [], []);
start_monitor(Opts) when is_list(Opts) ->
    gen:start(?MODULE, monitor, ?MODULE, [], Opts).
start_monitor(Name, Opts) -> gen:start(?MODULE, monitor, Name, ?MODULE, [], Opts).

stop(M) -> gen:stop(M).
stop(M, Reason, Timeout) -> gen:stop(M, Reason, Timeout).

notify(M, Event) -> send(M, {notify, Event}).

sync_notify(M, Event) -> rpc(M, {sync_notify, Event}).

call(M, Handler, Query) -> call1(M, Handler, Query).
call(M, Handler, Query, Timeout) -> call1(M, Handler, Query, Timeout).

add_handler(M, Handler, Args) -> rpc(M, {add_handler, Handler, Args}).
add_sup_handler(M, Handler, Args) ->
    rpc(M, {add_sup_handler, Handler, Args, self()}).
delete_handler(M, Handler, Args) -> rpc(M, {delete_handler, Handler, Args}).
swap_handler(M, {H1, A1}, {H2, A2}) -> rpc(M, {swap_handler, H1, A1, H2, A2}).
swap_sup_handler(M, {H1, A1}, {H2, A2}) ->
    rpc(M, {swap_sup_handler, H1, A1, H2, A2, self()}).
which_handlers(M) -> rpc(M, which_handlers).

send_request(M, Handler, Query) ->
    gen:send_request(M, self(), {call, Handler, Query}).
wait_response(ReqId, Timeout) -> gen:wait_response(ReqId, Timeout).
receive_response(ReqId, Timeout) -> gen:receive_response(ReqId, Timeout).
check_response(Msg, ReqId) -> gen:check_response(Msg, ReqId).

send({global, Name}, Cmd) -> catch global:send(Name, Cmd), ok;
send({via, Mod, Name}, Cmd) -> catch Mod:send(Name, Cmd), ok;
send(M, Cmd) -> M ! Cmd, ok.

rpc(M, Cmd) ->
    {ok, Reply} = gen:call(M, self(), Cmd, infinity),
    Reply.

call1(M, Handler, Query) ->
    case catch gen:call(M, self(), {call, Handler, Query}) of
        {ok, Res} -> Res;
        {'EXIT', Reason} -> exit({Reason, {?MODULE, call, [M, Handler, Query]}})
    end.

call1(M, Handler, Query, Timeout) ->
    case catch gen:call(M, self(), {call, Handler, Query}, Timeout) of
        {ok, Res} -> Res;
        {'EXIT', Reason} ->
            exit({Reason, {?MODULE, call, [M, Handler, Query, Timeout]}})
    end.

%%% The manager

init_it(Starter, self, Name, Mod, Args, Options) ->
    init_it(Starter, self(), Name, Mod, Args, Options);
init_it(Starter, Parent, Name0, _Mod, _Args, Options) ->
    process_flag(trap_exit, true),
    Name = gen:name(Name0),
    HibAfter = gen:hibernate_after(Options),
    proc_lib:init_ack(Starter, {ok, self()}),
    loop(Parent, Name, [], HibAfter).

loop(Parent, Name, Handlers, HibAfter) ->
    receive
        Msg -> handle_msg(Msg, Parent, Name, Handlers, HibAfter)
    after HibAfter ->
            proc_lib:hibernate(?MODULE, wake_hib,
                               [Parent, Name, Handlers, HibAfter])
    end.

wake_hib(Parent, Name, Handlers, HibAfter) ->
    receive
        Msg -> handle_msg(Msg, Parent, Name, Handlers, HibAfter)
    end.

handle_msg(Msg, Parent, Name, Handlers, HibAfter) ->
    case Msg of
        {notify, Event} ->
            H1 = server_notify(Event, handle_event, Handlers, Name),
            loop(Parent, Name, H1, HibAfter);
        {_From, Tag, {sync_notify, Event}} ->
            H1 = server_notify(Event, handle_event, Handlers, Name),
            reply(Tag, ok),
            loop(Parent, Name, H1, HibAfter);
        {'EXIT', Parent, Reason} ->
            terminate_server(Reason, Parent, Handlers, Name);
        {_From, Tag, {call, Handler, Query}} ->
            {Reply, H1} = server_call(Handler, Query, Handlers, Name),
            reply(Tag, Reply),
            loop(Parent, Name, H1, HibAfter);
        {_From, Tag, {add_handler, Handler, Args}} ->
            {Reply, H1} = server_add_handler(Handler, Args, Handlers),
            reply(Tag, Reply),
            loop(Parent, Name, H1, HibAfter);
        {_From, Tag, {add_sup_handler, Handler, Args, SupP}} ->
            {Reply, H1} = server_add_sup_handler(Handler, Args, Handlers, SupP),
            reply(Tag, Reply),
            loop(Parent, Name, H1, HibAfter);
        {_From, Tag, {delete_handler, Handler, Args}} ->
            {Reply, H1} = server_delete_handler(Handler, Args, Handlers, Name),
            reply(Tag, Reply),
            loop(Parent, Name, H1, HibAfter);
        {_From, Tag, {swap_handler, H1, A1, H2, A2}} ->
            {Reply, NH} = server_swap_handler(H1, A1, H2, A2, Handlers,
                                              undefined, Name),
            reply(Tag, Reply),
            loop(Parent, Name, NH, HibAfter);
        {_From, Tag, {swap_sup_handler, H1, A1, H2, A2, Sup}} ->
            {Reply, NH} = server_swap_handler(H1, A1, H2, A2, Handlers, Sup,
                                              Name),
            reply(Tag, Reply),
            loop(Parent, Name, NH, HibAfter);
        {_From, Tag, stop} ->
            catch terminate_server(normal, Parent, Handlers, Name),
            reply(Tag, ok);
        {_From, Tag, which_handlers} ->
            reply(Tag, [handler_name(H) || H <- Handlers]),
            loop(Parent, Name, Handlers, HibAfter);
        {_From, Tag, get_modules} ->
            reply(Tag, lists:usort([H#handler.module || H <- Handlers])),
            loop(Parent, Name, Handlers, HibAfter);
        {'EXIT', From, Reason} ->
            loop(Parent, Name, handle_exit(From, Reason, Handlers, Name),
                 HibAfter);
        {system, From, Req} ->
            sys:handle_system_msg(Req, From, Parent, ?MODULE, [],
                                  [Name, Handlers, HibAfter], false);
        _ ->
            H1 = server_notify(Msg, handle_info, Handlers, Name),
            loop(Parent, Name, H1, HibAfter)
    end.

reply(From, Reply) -> gen:reply(From, Reply).

handler_name(#handler{module = M, id = false}) -> M;
handler_name(#handler{module = M, id = Id}) -> {M, Id}.

split_handler({Mod, Id}) -> {Mod, Id};
split_handler(Mod) -> {Mod, false}.

find_handler(Handler, Handlers) ->
    {Mod, Id} = split_handler(Handler),
    case [H || #handler{module = M, id = I} = H <- Handlers,
               M =:= Mod, I =:= Id] of
        [H | _] -> {ok, H};
        [] -> error
    end.

replace(H, Handlers) ->
    [case X#handler.ref =:= H#handler.ref of true -> H; false -> X end
     || X <- Handlers].

remove(H, Handlers) -> [X || X <- Handlers, X#handler.ref =/= H#handler.ref].

%% Adding: the handler's init/1 decides. New handlers go first, as in OTP
%% (which_handlers/1 lists the newest first).
server_add_handler(Handler, Args, Handlers) ->
    {Mod, Id} = split_handler(Handler),
    add(#handler{module = Mod, id = Id}, Args, Handlers).

server_add_sup_handler(Handler, Args, Handlers, SupP) ->
    {Mod, Id} = split_handler(Handler),
    link(SupP),
    add(#handler{module = Mod, id = Id, supervised = SupP}, Args, Handlers).

add(H0, Args, Handlers) ->
    H = H0#handler{ref = make_ref()},
    Mod = H#handler.module,
    case catch Mod:init(Args) of
        {ok, State} -> {ok, [H#handler{state = State} | Handlers]};
        {ok, State, hibernate} -> {ok, [H#handler{state = State} | Handlers]};
        Other -> {Other, Handlers}
    end.

server_delete_handler(Handler, Args, Handlers, Name) ->
    case find_handler(Handler, Handlers) of
        {ok, H} ->
            {do_terminate(H, Args, delete, Name, normal), remove(H, Handlers)};
        error ->
            {{error, module_not_found}, Handlers}
    end.

server_swap_handler(H1, A1, H2, A2, Handlers, Sup, Name) ->
    {State2, Sup2, Handlers1} =
        case find_handler(H1, Handlers) of
            {ok, Old} ->
                St = do_terminate(Old, A1, swapped, Name, {swapped, H2, Sup}),
                {St, Old#handler.supervised, remove(Old, Handlers)};
            error ->
                {error, false, Handlers}
        end,
    SupP = case Sup of
               undefined -> Sup2;
               _ -> link(Sup), Sup
           end,
    {Mod2, Id2} = split_handler(H2),
    New = #handler{module = Mod2, id = Id2, supervised = SupP,
                   ref = make_ref()},
    case catch Mod2:init({A2, State2}) of
        {ok, NewState} -> {ok, [New#handler{state = NewState} | Handlers1]};
        {ok, NewState, hibernate} ->
            {ok, [New#handler{state = NewState} | Handlers1]};
        Other -> {{error, Other}, Handlers1}
    end.

%% Every handler gets the event, in the manager's order; one that fails
%% is removed.
server_notify(_Event, _Func, [], _Name) -> [];
server_notify(Event, Func, [H | T], Name) ->
    case server_update(H, Func, Event, Name) of
        {ok, H1} -> [H1 | server_notify(Event, Func, T, Name)];
        remove -> server_notify(Event, Func, T, Name)
    end.

server_update(#handler{module = Mod, state = State} = H, Func, Event, Name) ->
    case catch Mod:Func(Event, State) of
        {ok, State1} -> {ok, H#handler{state = State1}};
        {ok, State1, hibernate} -> {ok, H#handler{state = State1}};
        {swap_handler, A1, State1, Handler2, A2} ->
            do_swap_in_update(H#handler{state = State1}, A1, Handler2, A2,
                              Name);
        remove_handler ->
            do_terminate(H, remove_handler, Event, Name, normal),
            remove;
        {'EXIT', _} = Other when Func =:= handle_info ->
            maybe_unhandled_info(Mod, Event, H, Other, Name);
        Other ->
            do_terminate(H, {error, Other}, Event, Name, crash),
            remove
    end.

maybe_unhandled_info(Mod, Event, H, Other, Name) ->
    case erlang:function_exported(Mod, handle_info, 2) of
        true ->
            do_terminate(H, {error, Other}, Event, Name, crash),
            remove;
        false ->
            logger:warning("** Undefined handle_info in ~tp~n"
                           "** Unhandled message: ~tp~n", [Mod, Event]),
            {ok, H}
    end.

%% A swap requested by a handler's own return value happens after the
%% event; the manager goes on with the new handler.
do_swap_in_update(H, A1, Handler2, A2, Name) ->
    State2 = do_terminate(H, A1, swapped, Name, {swapped, Handler2,
                                                 H#handler.supervised}),
    {Mod2, Id2} = split_handler(Handler2),
    case catch Mod2:init({A2, State2}) of
        {ok, NewState} ->
            {ok, #handler{module = Mod2, id = Id2, state = NewState,
                          supervised = H#handler.supervised,
                          ref = make_ref()}};
        _ -> remove
    end.

server_call(Handler, Query, Handlers, Name) ->
    case find_handler(Handler, Handlers) of
        {ok, #handler{module = Mod, state = State} = H} ->
            case catch Mod:handle_call(Query, State) of
                {ok, Reply, State1} ->
                    {Reply, replace(H#handler{state = State1}, Handlers)};
                {ok, Reply, State1, hibernate} ->
                    {Reply, replace(H#handler{state = State1}, Handlers)};
                {remove_handler, Reply} ->
                    do_terminate(H, remove_handler, Query, Name, normal),
                    {Reply, remove(H, Handlers)};
                {swap_handler, Reply, A1, State1, Handler2, A2} ->
                    case do_swap_in_update(H#handler{state = State1}, A1,
                                           Handler2, A2, Name) of
                        {ok, New} ->
                            {Reply, [New | remove(H, Handlers)]};
                        remove ->
                            {Reply, remove(H, Handlers)}
                    end;
                Other ->
                    do_terminate(H, {error, Other}, Query, Name, crash),
                    {{error, Other}, remove(H, Handlers)}
            end;
        error ->
            {{error, bad_module}, Handlers}
    end.

%% A handler leaves: its terminate/2 (if any) runs; a crash is reported;
%% a supervised handler's owner is told why.
do_terminate(#handler{module = Mod, state = State} = H, Args, LastIn, Name,
             Reason) ->
    Res = case erlang:function_exported(Mod, terminate, 2) of
              true -> catch Mod:terminate(Args, State);
              false -> ok
          end,
    report_terminate(H, Args, State, LastIn, Name, Reason),
    Res.

report_terminate(H, {error, Why}, State, LastIn, Name, crash) ->
    report_error(H, Why, State, LastIn, Name),
    tell_owner(H, case Why of
                      {'EXIT', _} -> Why;
                      Other -> {'EXIT', {bad_return_value, Other}}
                  end);
report_terminate(H, _Args, _State, _LastIn, _Name, normal) ->
    tell_owner(H, normal);
report_terminate(H, _Args, _State, _LastIn, _Name, shutdown) ->
    tell_owner(H, shutdown);
report_terminate(H, _Args, _State, _LastIn, _Name, {swapped, _, _} = S) ->
    tell_owner(H, S);
report_terminate(H, _Args, _State, _LastIn, _Name, Other) ->
    tell_owner(H, Other).

tell_owner(#handler{supervised = false}, _) -> ok;
tell_owner(#handler{supervised = Pid} = H, Reason) when is_pid(Pid) ->
    Pid ! {gen_event_EXIT, handler_name(H), Reason},
    ok.

report_error(H, Why, State, LastIn, Name) ->
    Reason = case Why of
                 {'EXIT', R} -> R;
                 Other -> {bad_return_value, Other}
             end,
    logger:error(#{label => {gen_event, terminate},
                   handler => handler_name(H), name => Name,
                   last_message => LastIn, state => State, reason => Reason},
                 #{domain => [otp],
                   report_cb => fun gen_event:format_log/2,
                   error_logger => #{tag => error}}).

format_log(Report) ->
    {"~ts", [format_log(Report, #{})]}.

format_log(#{label := {gen_event, terminate}, handler := Handler,
             name := Name, last_message := LastIn, state := State,
             reason := Reason}, _Config) ->
    io_lib:format("** gen_event handler ~tp crashed.~n"
                  "** Was installed in ~tp~n"
                  "** Last event was: ~tp~n"
                  "** When handler state == ~tp~n"
                  "** Reason == ~tp~n",
                  [Handler, Name, LastIn, State, Reason]).

%% A supervised handler's owner died: the handler goes.
handle_exit(From, Reason, Handlers, Name) ->
    lists:foldr(fun(#handler{supervised = S} = H, Acc) when S =:= From ->
                        do_terminate(H, {stop, Reason}, {'EXIT', From, Reason},
                                     Name, shutdown),
                        Acc;
                   (H, Acc) -> [H | Acc]
                end, [], Handlers).

terminate_server(Reason, _Parent, Handlers, Name) ->
    lists:foreach(fun(H) -> do_terminate(H, stop, stop, Name, shutdown) end,
                  Handlers),
    exit(Reason).

%%% sys callbacks

system_continue(Parent, _Debug, [Name, Handlers, HibAfter]) ->
    loop(Parent, Name, Handlers, HibAfter).

system_terminate(Reason, Parent, _Debug, [Name, Handlers, _HibAfter]) ->
    terminate_server(Reason, Parent, Handlers, Name).

system_code_change([Name, Handlers, HibAfter], Module, OldVsn, Extra) ->
    Handlers1 =
        [case H#handler.module of
             Module ->
                 {ok, NewState} = Module:code_change(OldVsn, H#handler.state,
                                                     Extra),
                 H#handler{state = NewState};
             _ -> H
         end || H <- Handlers],
    {ok, [Name, Handlers1, HibAfter]}.

system_get_state([_Name, Handlers, _HibAfter]) ->
    {ok, [{M, Id, S} || #handler{module = M, id = Id, state = S} <- Handlers]}.

system_replace_state(StateFun, [Name, Handlers, HibAfter]) ->
    Handlers1 = [begin
                     {M, Id, S1} = StateFun({M, Id, S}),
                     H#handler{state = S1}
                 end || #handler{module = M, id = Id, state = S} = H <- Handlers],
    {ok, [{M, Id, S} || #handler{module = M, id = Id, state = S} <- Handlers1],
     [Name, Handlers1, HibAfter]}.

format_status(_Opt, [_PDict, SysState, Parent, _Debug,
                     [Name, Handlers, _HibAfter]]) ->
    Header = gen:format_status_header("Status for event handler", Name),
    [{header, Header},
     {data, [{"Status", SysState}, {"Parent", Parent}]},
     {items, {"Installed handlers", Handlers}}].
